import Foundation

/// Who a token belongs to, as introspection and `/verify` need it: no stored profile to read
/// and decode, which is most of what reading a whole `User` costs.
public struct AccountSummary: Sendable, Equatable {
    public let id: String
    public let email: String
    /// The address is proven (a code, or a provider that vouched): what `/verify` and introspection may assert.
    public let emailVerified: Bool
    public let disabledAt: Date?

    public init(id: String, email: String, emailVerified: Bool, disabledAt: Date?) {
        self.id = id
        self.email = email
        self.emailVerified = emailVerified
        self.disabledAt = disabledAt
    }

    public var isDisabled: Bool { disabledAt != nil }
}
