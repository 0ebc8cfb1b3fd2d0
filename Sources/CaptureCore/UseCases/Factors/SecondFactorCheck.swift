import CaptureJSON
import Foundation

/// An account's second factor at sign-in and step-up: the ticket, and spending a code once.
public struct SecondFactorCheck: Sendable {
    let secondFactors: any SecondFactorRepository
    let ceremonies: any CeremonyRepository
    let minter: TokenMinter
    let time: any TimeSource
    let settings: ServiceSettings
    let codeKey: CodeKey
}

extension SecondFactorCheck {
    /// How long a second-factor ticket or an authenticator set-up waits for its code.
    static let secondFactorLifetime: TimeInterval = 300
    /// Wrong codes a ticket or set-up takes before it is gone.
    static let secondFactorAttempts = 5
    /// In a ticket's parameters: the provider a social sign-in came through (absent after a password).
    static let providerKey = "_provider"

    /// After the right password (or a provider's sign-in, `provider`): a ticket when the account has a second factor
    /// (thrown as `secondFactorRequired`), a refusal when the client requires one the account lacks; nothing
    /// otherwise.
    func requireSecondFactor(of user: User, _ request: FlowRequest, client: Client, provider: String? = nil) async throws {
        guard try await secondFactors.find(userID: user.id) != nil else {
            if settings.clients.first(where: { $0.clientId == client.clientID })?.requireSecondFactor == true {
                throw CaptureError.secondFactorSetupRequired
            }
            return
        }
        var resumable = request.resumable
        resumable[Self.providerKey] = provider
        let ticket = minter.mint()
        let now = time.now()
        try await ceremonies.insert(
            PendingCeremony(
                hash: TokenMinter.hash(ticket), kind: .secondFactor, userID: user.id, clientID: client.clientID,
                payload: String(decoding: JSONValue.object(resumable.mapValues(JSONValue.string)).encodedBytes(), as: UTF8.self),
                createdAt: now, expiresAt: now.addingTimeInterval(Self.secondFactorLifetime)))
        throw CaptureError.secondFactorRequired(ticket: ticket)
    }

    /// Accepts `code` for the account's second factor once: the step or recovery code is spent in the same write.
    func spendSecondFactor(_ code: String, of user: User) async throws -> Bool {
        let key = codeKey
        let now = time.now()
        return try await secondFactors.use(userID: user.id) { factor in
            guard let factor, let next = factor.accepting(code, at: now, key: key) else { return (nil, false) }
            return (next, true)
        }
    }
}
