import CaptureJSON
import Foundation

/// A registered person. The password is only ever held as a hash: bcrypt, or an imported legacy format until the
/// first sign-in (`StoredPasswordHash`).
public struct User: Sendable, Equatable {
    public var id: String
    /// Janrain's numeric `id`, given by storage when the record is first saved.
    public var number: Int64?
    public var email: String
    public var passwordHash: String?
    /// The schema's attributes other than `email` (Settings/schema.json), as stored.
    public var profile: [String: JSONValue]
    /// The last id given to a plural element of this record; ids are never reused.
    public var lastElementID: Int64
    /// Set when the profile changed through a document (`apply`): the text of each unique attribute, which
    /// storage then writes to its uniqueness index with the record. Nil for records read back from storage.
    public internal(set) var uniqueValues: [String: String]?
    public var emailVerifiedAt: Date?
    public var createdAt: Date
    public var updatedAt: Date
    public var lastLoginAt: Date?
    public var disabledAt: Date?
    /// When the person deleted their account (Janrain's `accountDeleteRequestTime`): it is deactivated since, and
    /// erased once the grace period has passed (`AccountDeletion`). Nil for an account an operator disabled.
    public var deleteRequestedAt: Date?

    public init(id: String, email: String, passwordHash: String?, createdAt: Date) {
        self.id = id
        self.email = email
        self.passwordHash = passwordHash
        self.profile = [:]
        self.lastElementID = 0
        self.createdAt = createdAt
        self.updatedAt = createdAt
    }

    public var isDisabled: Bool { disabledAt != nil }

    /// Lower-cased and trimmed: addresses are unique regardless of case.
    public static func normalize(email: String) -> String {
        email.trimmedOfWhitespace.lowercased()
    }

    /// Text attributes of the demo schema that operators' tools show.
    public var displayName: String? { profile["displayName"]?.stringValue }
    public var givenName: String? { profile["givenName"]?.stringValue }
    public var familyName: String? { profile["familyName"]?.stringValue }
    public var birthday: String? { profile["birthday"]?.stringValue }
    public var phone: String? { profile["phone"]?.stringValue }
}
