import Foundation

extension CaptureService {
    /// Whether the session behind `token` began with a sign-in (a password, a provider, a registration) within
    /// `recentSignInMinutes`: a refresh continues a session, it does not make it recent. An address change needs it
    /// (SPEC §15), so an access token stolen for an hour cannot move the account to another mailbox.
    func requireRecentSignIn(_ token: TokenRecord) async throws {
        let since = time.now().addingTimeInterval(-settings.recentSignInMinutes * 60)
        let chain = try await store.tokens.list(
            TokenFilter(userID: token.userID, now: time.now(), page: Page(limit: Page.maxLimit))
        ).filter { $0.chainID == token.chainID }
        let began = chain.map(\.issuedAt).min() ?? token.issuedAt
        guard began >= since else {
            throw CaptureError.notPermitted(
                "changing the email address needs a recent sign-in: sign in again, then change it within "
                    + "\(Int(settings.recentSignInMinutes)) minutes")
        }
    }

    /// After an address change (`save`): the new address is unproven (a code goes to it), every other session ends
    /// (the current one stays), outstanding codes no longer match (they are bound to the old address), and the old
    /// address is told, with an audit row. Janrain switches at once and so does this; what an unproven address may
    /// do is limited everywhere else (`/verify`, `requireVerifiedEmail`, linking).
    func addressChanged(from previous: User, to user: User, token: TokenRecord, flow: FlowDefinition?, locale: String?)
        async throws
    {
        let now = time.now()
        metrics.revoked(try await store.tokens.revokeAll(userID: user.id, exceptChain: token.chainID, at: now), .addressChange)
        let client = try await self.client(id: token.clientID)
        if let flow = flow ?? catalog.flows.values.min(by: { $0.name < $1.name }) {
            let context = FlowContext(client: client, flow: flow, form: "", responseType: "token")
            try await sendCode(.emailVerification, to: user.email, user: user, context: context, locale: locale)
        }
        try await sendNotice(
            .emailChanged, to: previous.email, user: user, locale: locale,
            values: ["name": user.displayName ?? previous.email, "email": user.email, "previous": previous.email])
        await recordSecurityEvent(
            "user.email_change", target: user.id, detail: "from \(previous.email) to \(user.email); other sessions ended")
    }
}
