import HummingbirdBcrypt

/// The one place a typed password is checked against the password column, whatever format it holds: bcrypt (the
/// service's own, and imported bcrypt) or a legacy hash (`LegacyPasswordHash`, kept until the first sign-in).
public enum StoredPasswordHash {
    /// What a stored hash is, for operators (`capturectl user show`, the per-format report): computed from the
    /// stored tag, never from SQL.
    public enum Format: Hashable, Sendable, CustomStringConvertible {
        /// No password (social-only accounts, imports without one).
        case none
        case bcrypt
        /// A legacy format's name (`md5-salted-left`, `argon2id`…): rehashed to bcrypt at the next sign-in.
        case legacy(String)
        /// A legacy tag out of shape or over the cost bounds: never checked; its owner resets the password.
        case unusable

        public var description: String {
            switch self {
            case .none: "none"
            case .bcrypt: "bcrypt"
            case .legacy(let name): "\(name) (migrating)"
            case .unusable: "unusable (reset needed)"
            }
        }
    }

    public static func format(of stored: String?) -> Format {
        guard let stored else { return .none }
        if stored.hasPrefix(LegacyPasswordHash.prefix) {
            guard let legacy = try? LegacyPasswordHash(stored: stored) else { return .unusable }
            return .legacy(legacy.format)
        }
        if let cost = BcryptCost.of(stored) { return cost > BcryptCost.range.upperBound ? .unusable : .bcrypt }
        return .unusable
    }

    /// Whether `password` is the one `stored` was made from. Synchronous and as slow as the format is: run it on the
    /// HashingPool. A legacy check also spends one bcrypt check against `timingFloor` (a bcrypt hash at the service's
    /// cost that matches nothing), so an account with a fast legacy hash answers no sooner than an unknown address
    /// (whose check is against the decoy bcrypt hash): sign-in timing says nothing of which accounts still migrate.
    static func matches(_ password: String, stored: String, timingFloor: String) -> Bool {
        if stored.hasPrefix(LegacyPasswordHash.prefix) {
            let legacy = try? LegacyPasswordHash(stored: stored)
            let matched = legacy?.matches(Array(password.utf8)) ?? false
            _ = Bcrypt.verify(password, hash: timingFloor)
            return matched
        }
        // A hash costlier than `BcryptCost.range` (stored before imports were bounded) is never run: it would hold a
        // hashing thread for hours; its owner resets the password.
        if let cost = BcryptCost.of(stored), cost > BcryptCost.range.upperBound { return false }
        return Bcrypt.verify(password, hash: stored)
    }
}
