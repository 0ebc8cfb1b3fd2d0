import Foundation

/// Passkeys registered to accounts. A credential id belongs to one account at most.
public protocol PasskeyRepository: Sendable {
    /// Throws `CaptureError.notPermitted` when the credential id is registered already.
    func insert(_ passkey: Passkey) async throws
    func find(credentialID: String) async throws -> Passkey?
    func list(userID: String) async throws -> [Passkey]
    /// In one transaction: reads the passkey, stores what `decide` returns (nil leaves it) and returns the verdict,
    /// so two sign-ins racing with one counter value cannot both pass.
    func use<Verdict: Sendable>(
        credentialID: String, _ decide: @Sendable (Passkey?) -> (Passkey?, Verdict)
    ) async throws -> Verdict
    @discardableResult func remove(credentialID: String, userID: String) async throws -> Bool
    /// Removes every passkey of the account; returns how many.
    func removeAll(userID: String) async throws -> Int
}

/// Ceremonies under way (`PendingCeremony`), by the hash of their secret.
public protocol CeremonyRepository: Sendable {
    func insert(_ ceremony: PendingCeremony) async throws
    /// In one transaction: reads the ceremony, then deletes it when `decide` returns nil for it or stores what it
    /// returns, and returns the verdict. A challenge is taken once however many requests race for it.
    func use<Verdict: Sendable>(
        hash: String, _ decide: @Sendable (PendingCeremony?) -> (PendingCeremony?, Verdict)
    ) async throws -> Verdict
    /// Deletes ceremonies that expired before `cutoff`; returns how many.
    func purge(expiredBefore cutoff: Date) async throws -> Int
}

/// Accounts' second factors, one per account at most.
public protocol SecondFactorRepository: Sendable {
    func find(userID: String) async throws -> SecondFactor?
    /// Stores the account's second factor, replacing any it had.
    func save(_ factor: SecondFactor) async throws
    /// In one transaction: reads, stores what `decide` returns (nil leaves it) and returns the verdict, so one code
    /// or recovery code is accepted once however many requests race with it.
    func use<Verdict: Sendable>(
        userID: String, _ decide: @Sendable (SecondFactor?) -> (SecondFactor?, Verdict)
    ) async throws -> Verdict
    @discardableResult func remove(userID: String) async throws -> Bool
}
