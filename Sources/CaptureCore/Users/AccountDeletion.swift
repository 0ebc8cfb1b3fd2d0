import Foundation

/// What a person's own deletion of their account means over time: it is deactivated at once (every session ends,
/// sign-in is refused) and erased once the grace period has passed; until then the owner's proof (the password, or a
/// provider's sign-in) brings it back. An account an operator disabled has no deletion request and is never
/// reactivated by its owner.
public struct AccountDeletion: Sendable, Equatable {
    /// Between the request and the erasure (0: erased at once).
    public let grace: TimeInterval

    public init(graceDays: Double) {
        grace = graceDays * 86400
    }

    /// When the account is to be erased, for an account its owner deleted.
    public func erasure(of user: User) -> Date? {
        user.deleteRequestedAt.map { $0.addingTimeInterval(grace) }
    }

    /// Whether the owner may still bring the account back at `now`.
    public func isReactivable(_ user: User, at now: Date) -> Bool {
        guard let erasure = erasure(of: user) else { return false }
        return now < erasure
    }

    /// Requests made at or before this time are due for erasure at `now`.
    public func dueBefore(_ now: Date) -> Date {
        now.addingTimeInterval(-grace)
    }
}
