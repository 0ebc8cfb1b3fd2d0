import Foundation

/// Who a token belongs to, as introspection and `/verify` need it: no stored profile to read
/// and decode, which is most of what reading a whole `User` costs.
public struct AccountSummary: Sendable, Equatable {
    public let id: String
    public let email: String
    public let disabledAt: Date?

    public init(id: String, email: String, disabledAt: Date?) {
        self.id = id
        self.email = email
        self.disabledAt = disabledAt
    }

    public var isDisabled: Bool { disabledAt != nil }
}
