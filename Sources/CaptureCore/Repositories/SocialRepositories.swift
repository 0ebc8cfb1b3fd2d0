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
    func touch(provider: String, subject: String, at date: Date) async throws
    /// Removes one provider account (a user may hold several of one provider) from the user's links.
    @discardableResult func unlink(provider: String, subject: String, userID: String) async throws -> Bool
}
