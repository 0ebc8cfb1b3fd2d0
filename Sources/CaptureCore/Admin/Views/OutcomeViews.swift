/// `{"revoked": n}`: how many tokens a revocation or a sign-out revoked.
public struct RevocationView: Codable, Sendable, Equatable {
    public var revoked: Int

    enum CodingKeys: String, CodingKey, CaseIterable { case revoked }

    public init(revoked: Int) { self.revoked = revoked }
}

/// `{"purged": n}`: how many expired tokens were deleted.
public struct PurgeView: Codable, Sendable, Equatable {
    public var purged: Int

    enum CodingKeys: String, CodingKey, CaseIterable { case purged }

    public init(purged: Int) { self.purged = purged }
}

/// `{"deleted": id, "email": address}`: the user deleted.
public struct DeletedUserView: Codable, Sendable, Equatable {
    public var deleted: String
    public var email: String

    enum CodingKeys: String, CodingKey, CaseIterable { case deleted, email }

    public init(deleted: String, email: String) {
        self.deleted = deleted
        self.email = email
    }
}

/// `{"removed": client_id, "revoked": n}`: the client removed and how many of its tokens were revoked.
public struct RemovedClientView: Codable, Sendable, Equatable {
    public var removed: String
    public var revoked: Int

    enum CodingKeys: String, CodingKey, CaseIterable { case removed, revoked }

    public init(removed: String, revoked: Int) {
        self.removed = removed
        self.revoked = revoked
    }
}

/// `{"client_id", "client_secret"}`: a new secret, shown once.
public struct ClientSecretView: Codable, Sendable, Equatable {
    public var clientID: String
    public var clientSecret: String

    enum CodingKeys: String, CodingKey, CaseIterable {
        case clientID = "client_id", clientSecret = "client_secret"
    }

    public init(clientID: String, clientSecret: String) {
        self.clientID = clientID
        self.clientSecret = clientSecret
    }
}

/// `{"user": id, "passkeys_removed": n, "second_factor_removed": bool}`: an account's factors reset by an operator.
public struct FactorsResetView: Codable, Sendable, Equatable {
    public var user: String
    public var passkeysRemoved: Int
    public var secondFactorRemoved: Bool

    enum CodingKeys: String, CodingKey, CaseIterable {
        case user
        case passkeysRemoved = "passkeys_removed"
        case secondFactorRemoved = "second_factor_removed"
    }

    public init(user: String, passkeysRemoved: Int, secondFactorRemoved: Bool) {
        self.user = user
        self.passkeysRemoved = passkeysRemoved
        self.secondFactorRemoved = secondFactorRemoved
    }
}

/// `{"formats": [{"format": "bcrypt", "users": n}, …]}`: how many users' passwords are in each stored format, most
/// first (`capturectl user passwords`).
public struct PasswordFormatsView: Codable, Sendable, Equatable {
    public struct Entry: Codable, Sendable, Equatable {
        /// `bcrypt`, `none`, a legacy format's name (`md5-salted-left`…) or `unusable`.
        public var format: String
        public var users: Int

        enum CodingKeys: String, CodingKey, CaseIterable { case format, users }
    }

    public var formats: [Entry]

    enum CodingKeys: String, CodingKey, CaseIterable { case formats }

    public init(_ counts: [StoredPasswordHash.Format: Int]) {
        formats = counts.map { format, users in
            let name =
                switch format {
                case .none: "none"
                case .bcrypt: "bcrypt"
                case .legacy(let name): name
                case .unusable: "unusable"
                }
            return Entry(format: name, users: users)
        }
        .sorted { ($0.users, $1.format) > ($1.users, $0.format) }
    }
}

/// `{"cleared": n}`: how many users' passwords in one legacy format were removed.
public struct PasswordsClearedView: Codable, Sendable, Equatable {
    public var cleared: Int

    enum CodingKeys: String, CodingKey, CaseIterable { case cleared }

    public init(cleared: Int) { self.cleared = cleared }
}
