import Foundation

/// The secret a client had before `clients/reset_secret` with `hours_to_live`: accepted beside the new one until
/// `expiresAt`, so a backend moves to the new secret with no moment when neither works (Janrain's rotation).
public struct RetiringSecret: Sendable, Equatable {
    /// SHA-256 hex of the old secret, as `Client.secretHash`.
    public var hash: String
    /// The old secret sealed under the code key, for signed requests; nil when it was made before secrets were sealed.
    public var sealed: String?
    public var expiresAt: Date

    public init(hash: String, sealed: String?, expiresAt: Date) {
        self.hash = hash
        self.sealed = sealed
        self.expiresAt = expiresAt
    }

    /// The most hours an old secret may be kept (Janrain's `hours_to_live` bound).
    public static let maxHours = 168
}

extension Client {
    /// Whether `secret` is this client's: the secret's hash, or — until it expires — the retiring secret's, both
    /// compared in constant time. A public client has no secret to present.
    public func accepts(secret: String, at now: Date) -> Bool {
        guard let secretHash else { return false }
        let presented = TokenMinter.hash(secret)
        let current = ConstantTime.equals(presented, secretHash)
        let retiring = liveRetiringSecret(at: now).map { ConstantTime.equals(presented, $0.hash) } ?? false
        return current || retiring
    }

    /// The retiring secret while it is still accepted.
    public func liveRetiringSecret(at now: Date) -> RetiringSecret? {
        retiringSecret.flatMap { now < $0.expiresAt ? $0 : nil }
    }
}
