import Foundation

/// A token's state at a moment.
public enum TokenState: String, Sendable, CaseIterable {
    case active, expired, revoked, used

    /// What a token's stored times are in this state: revoked wins over used, used over expired. The one statement
    /// of the rule: `TokenRecord.state(at:)` applies it, and each backend writes these conditions in its query
    /// language to list tokens by state.
    public var stored: StoredTokenState {
        switch self {
        case .revoked: StoredTokenState(revoked: true, used: nil, expired: nil)
        case .used: StoredTokenState(revoked: false, used: true, expired: nil)
        case .expired: StoredTokenState(revoked: false, used: false, expired: true)
        case .active: StoredTokenState(revoked: false, used: false, expired: false)
        }
    }
}

/// Conditions on a token's stored times; nil: either way. `expired`: `expiresAt` at or before the moment judged.
public struct StoredTokenState: Sendable, Equatable {
    public let revoked: Bool?
    public let used: Bool?
    public let expired: Bool?

    public func holds(revokedAt: Date?, usedAt: Date?, expiresAt: Date, at now: Date) -> Bool {
        (revoked.map { $0 == (revokedAt != nil) } ?? true) && (used.map { $0 == (usedAt != nil) } ?? true)
            && (expired.map { $0 == (expiresAt <= now) } ?? true)
    }
}
