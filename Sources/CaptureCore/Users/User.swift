import Foundation

/// A registered person. The password is only ever held as a bcrypt hash.
public struct User: Sendable, Equatable, Codable {
    public var id: String
    public var email: String
    public var passwordHash: String?
    public var displayName: String?
    public var givenName: String?
    public var familyName: String?
    public var birthday: String?
    public var phone: String?
    public var emailVerifiedAt: Date?
    public var createdAt: Date
    public var updatedAt: Date
    public var lastLoginAt: Date?
    public var disabledAt: Date?

    public init(id: String, email: String, passwordHash: String?, createdAt: Date) {
        self.id = id
        self.email = email
        self.passwordHash = passwordHash
        self.createdAt = createdAt
        self.updatedAt = createdAt
    }

    public var isDisabled: Bool { disabledAt != nil }

    /// Lower-cased and trimmed: addresses are unique regardless of case.
    public static func normalize(email: String) -> String {
        email.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
    }
}
