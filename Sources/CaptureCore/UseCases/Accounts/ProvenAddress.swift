import Foundation

/// `requireVerifiedEmail` on every path that hands a client a token.
public struct ProvenAddress: Sendable {
    let checks: any TokenChecks
    let throttle: SignInThrottle
    let catalog: FlowCatalog
    let time: any TimeSource
    let oneTimeCodes: OneTimeCodes
}

extension ProvenAddress {
    /// `requireVerifiedEmail` holds on every path that hands its client a token (docs/contract.md §15): password and social
    /// sign-in, registration, refresh (a session whose address became unproven) and code exchange each answer 112,
    /// with a code mailed to the address (unless the path just mailed one, `mailed`) and within the code-request
    /// limits, so a refresh loop cannot flood a mailbox.
    func requireProvenAddress(
        of user: User, client: Client, flow: FlowDefinition? = nil, locale: String? = nil, mailed: Bool = false
    ) async throws {
        guard client.requireVerifiedEmail, user.emailVerifiedAt == nil else { return }
        if !mailed, let flow = flow ?? catalog.pageFlows.first,
            (try? await throttle.admitCodeRequest(email: user.email, address: nil, now: time.now())) != nil
        {
            let context = FlowContext(client: client, flow: flow, form: "", responseType: .token)
            try await oneTimeCodes.sendCode(.emailVerification, to: user.email, user: user, context: context, locale: locale)
        }
        throw CaptureError.emailNotVerified
    }

    /// The account behind a refresh token or an authorization code, for a client that requires a proven address:
    /// checked before the one-use token is spent, so the session goes on once the address is proven.
    func requireProvenAddress(presenting token: String, client: Client) async throws {
        guard client.requireVerifiedEmail,
            let lookup = try await checks.check(TokenMinter.key(token), .user),
            lookup.record.clientID == client.clientID, let user = lookup.user
        else { return }
        try await requireProvenAddress(of: user, client: client)
    }
}
