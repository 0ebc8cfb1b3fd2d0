import Foundation

/// A user for operators; the password hash is never included, only whether there is one and its format.
public struct UserView: Codable, Sendable, Equatable {
    public var id: String
    public var email: String
    /// `active`, `disabled` (by an operator) or `deleted` (by its owner: erased after the grace period).
    public var state: String
    public var displayName: String?
    public var givenName: String?
    public var familyName: String?
    public var birthday: String?
    public var phone: String?
    public var hasPassword: Bool
    /// The stored password's format (`StoredPasswordHash.Format`): `bcrypt`, `none`, or a legacy format still
    /// migrating (`md5-salted-left (migrating)`).
    public var password: String
    public var emailVerifiedAt: Date?
    public var createdAt: Date
    public var updatedAt: Date
    public var lastLoginAt: Date?
    public var disabledAt: Date?
    /// When the owner deleted the account (Janrain's `accountDeleteRequestTime`).
    public var deleteRequestedAt: Date?
    /// Only in the view of one user (`user show`, `GET /users/{user}`); left out of lists and of changes.
    public var linkedAccounts: [LinkedAccountView]?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, email, state, birthday, phone, password
        case displayName = "display_name", givenName = "given_name", familyName = "family_name"
        case hasPassword = "has_password", emailVerifiedAt = "email_verified_at", createdAt = "created_at"
        case updatedAt = "updated_at", lastLoginAt = "last_login_at", disabledAt = "disabled_at"
        case deleteRequestedAt = "delete_requested_at"
        case linkedAccounts = "linked_accounts"
    }

    public init(_ user: User, linked: [LinkedIdentity]? = nil) {
        id = user.id
        email = user.email
        state = user.deleteRequestedAt != nil ? "deleted" : user.isDisabled ? "disabled" : "active"
        displayName = user.displayName
        givenName = user.givenName
        familyName = user.familyName
        birthday = user.birthday
        phone = user.phone
        hasPassword = user.passwordHash != nil
        password = StoredPasswordHash.format(of: user.passwordHash).description
        emailVerifiedAt = user.emailVerifiedAt
        createdAt = user.createdAt
        updatedAt = user.updatedAt
        lastLoginAt = user.lastLoginAt
        disabledAt = user.disabledAt
        deleteRequestedAt = user.deleteRequestedAt
        linkedAccounts = linked?.map(LinkedAccountView.init)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(email, forKey: .email)
        try container.encode(state, forKey: .state)
        try container.encode(displayName, forKey: .displayName)
        try container.encode(givenName, forKey: .givenName)
        try container.encode(familyName, forKey: .familyName)
        try container.encode(birthday, forKey: .birthday)
        try container.encode(phone, forKey: .phone)
        try container.encode(hasPassword, forKey: .hasPassword)
        try container.encode(password, forKey: .password)
        try container.encode(emailVerifiedAt, forKey: .emailVerifiedAt)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(updatedAt, forKey: .updatedAt)
        try container.encode(lastLoginAt, forKey: .lastLoginAt)
        try container.encode(disabledAt, forKey: .disabledAt)
        try container.encode(deleteRequestedAt, forKey: .deleteRequestedAt)
        try container.encodeIfPresent(linkedAccounts, forKey: .linkedAccounts)
    }
}

/// A social account linked to a user.
public struct LinkedAccountView: Codable, Sendable, Equatable {
    public var provider: String
    public var identifier: String
    public var email: String?
    public var linkedAt: Date
    public var lastUsedAt: Date?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case provider, identifier, email
        case linkedAt = "linked_at", lastUsedAt = "last_used_at"
    }

    public init(_ link: LinkedIdentity) {
        provider = link.provider
        identifier = link.identifier
        email = link.email
        linkedAt = link.linkedAt
        lastUsedAt = link.lastUsedAt
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(provider, forKey: .provider)
        try container.encode(identifier, forKey: .identifier)
        try container.encode(email, forKey: .email)
        try container.encode(linkedAt, forKey: .linkedAt)
        try container.encode(lastUsedAt, forKey: .lastUsedAt)
    }
}
