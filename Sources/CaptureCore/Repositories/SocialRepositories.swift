import Foundation

/// Social sign-ins under way. `use` reads, decides and writes in one transaction, so a state or a one-time token
/// is spent once however many requests race for it.
public protocol SocialLoginRepository: Sendable {
    func insert(_ login: SocialLogin) async throws
    func use<Verdict: Sendable>(
        stateHash: String, _ decide: @Sendable (SocialLogin?) -> (SocialLogin?, Verdict)
    ) async throws -> Verdict
    func use<Verdict: Sendable>(
        tokenHash: String, _ decide: @Sendable (SocialLogin?) -> (SocialLogin?, Verdict)
    ) async throws -> Verdict
    /// Deletes sign-ins that expired before `cutoff`; returns how many.
    func purge(expiredBefore cutoff: Date) async throws -> Int
}

/// Provider accounts linked to users. A provider account belongs to one user at most.
public protocol IdentityRepository: Sendable {
    func find(provider: String, subject: String) async throws -> LinkedIdentity?
    func list(userID: String) async throws -> [LinkedIdentity]
    /// Throws `CaptureError.notPermitted` when the provider account is linked to someone already.
    func link(_ identity: LinkedIdentity) async throws
    /// Marks the link used now; a refresh token the provider handed over (sealed) replaces the one kept.
    func touch(provider: String, subject: String, at date: Date, providerToken: String?) async throws
    /// Removes one provider account (a user may hold several of one provider) from the user's links.
    @discardableResult func unlink(provider: String, subject: String, userID: String) async throws -> Bool
}

/// Provider tokens to revoke (`ProviderRevocation`).
public protocol ProviderRevocationRepository: Sendable {
    /// Moves the tokens kept with the user's linked accounts into the queue, in one transaction (each token is
    /// queued once however many requests race); returns how many were queued.
    @discardableResult func queue(fromLinksOf userID: String, at date: Date) async throws -> Int
    /// Queues one token (a link's token that a newer sign-in replaced).
    func queue(_ sealedToken: String, provider: String, at date: Date) async throws
    /// Revocations whose next try is due, the oldest first.
    func due(at date: Date, limit: Int) async throws -> [ProviderRevocation]
    /// The provider took the token back, or it was given up.
    func remove(id: Int64) async throws
    /// A try failed: how many so far, when to try again and why it failed.
    func postpone(id: Int64, attempts: Int, until date: Date, error: String) async throws
    /// How many wait (`capture_provider_revocations_pending`).
    func pendingCount() async throws -> Int
}
