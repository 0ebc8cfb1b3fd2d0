import CaptureCore
import GRDB

// Core's value types are stored as they are; columns carry the property names.

extension User: FetchableRecord, PersistableRecord {
    public static let databaseTableName = "users"

    public init(row: Row) throws {
        self.init(id: row["id"], email: row["email"], passwordHash: row["passwordHash"], createdAt: row["createdAt"])
        number = row["number"]
        profile = StoredJSON.object(row["profile"] ?? "{}") ?? [:]
        lastElementID = row["lastElementID"] ?? 0
        emailVerifiedAt = row["emailVerifiedAt"]
        updatedAt = row["updatedAt"]
        lastLoginAt = row["lastLoginAt"]
        disabledAt = row["disabledAt"]
    }

    public func encode(to container: inout PersistenceContainer) throws {
        container["id"] = id
        container["number"] = number
        container["email"] = email
        container["passwordHash"] = passwordHash
        container["profile"] = StoredJSON.text(profile)
        container["lastElementID"] = lastElementID
        container["emailVerifiedAt"] = emailVerifiedAt
        container["createdAt"] = createdAt
        container["updatedAt"] = updatedAt
        container["lastLoginAt"] = lastLoginAt
        container["disabledAt"] = disabledAt
    }
}

extension Client: FetchableRecord, PersistableRecord {
    public static let databaseTableName = "clients"
}

/// Columns by hand, not through `Codable`: every token check decodes a token and every grant encodes two
/// (`Codable`'s keyed containers were most of a refresh grant's record work).
extension TokenRecord: FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "tokens"

    public init(row: Row) throws {
        self.init(
            kind: TokenKind(rawValue: row["kind"]) ?? .device, hash: row["hash"], userID: row["userID"],
            clientID: row["clientID"], chainID: row["chainID"], scope: row["scope"], authProvider: row["authProvider"],
            issuedAt: row["issuedAt"], expiresAt: row["expiresAt"], refreshSecret: row["refreshSecret"])
        id = row["id"]
        usedAt = row["usedAt"]
        revokedAt = row["revokedAt"]
        redirectURI = row["redirectURI"]
        codeChallenge = row["codeChallenge"]
    }

    public func encode(to container: inout PersistenceContainer) throws {
        container["id"] = id
        container["kind"] = kind.rawValue
        container["hash"] = hash
        container["userID"] = userID
        container["clientID"] = clientID
        container["chainID"] = chainID
        container["scope"] = scope
        container["authProvider"] = authProvider
        container["issuedAt"] = issuedAt
        container["expiresAt"] = expiresAt
        container["usedAt"] = usedAt
        container["revokedAt"] = revokedAt
        container["refreshSecret"] = refreshSecret
        container["redirectURI"] = redirectURI
        container["codeChallenge"] = codeChallenge
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}

extension OneTimeCode: FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "codes"

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}

extension OutboxEntry: FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "outbox"

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}

extension AuditEntry: FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "audit_log"

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}

extension AdminKey: FetchableRecord, PersistableRecord {
    public static let databaseTableName = "admin_keys"
}

extension SocialLogin: FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "social_logins"

    public init(row: Row) throws {
        self.init(
            stateHash: row["stateHash"], provider: row["provider"], clientID: row["clientID"], flow: row["flow"],
            locale: row["locale"], responseType: row["responseType"], returnURL: row["returnURL"], nonce: row["nonce"],
            codeVerifier: row["codeVerifier"], createdAt: row["createdAt"])
        id = row["id"]
        expiresAt = row["expiresAt"]
        subject = row["subject"]
        claims = (row["claims"] as String?).flatMap(StoredJSON.object)
        tokenHash = row["tokenHash"]
        tokenExpiresAt = row["tokenExpiresAt"]
        usedAt = row["usedAt"]
    }

    public func encode(to container: inout PersistenceContainer) throws {
        container["id"] = id
        container["stateHash"] = stateHash
        container["provider"] = provider
        container["clientID"] = clientID
        container["flow"] = flow
        container["locale"] = locale
        container["responseType"] = responseType
        container["returnURL"] = returnURL
        container["nonce"] = nonce
        container["codeVerifier"] = codeVerifier
        container["createdAt"] = createdAt
        container["expiresAt"] = expiresAt
        container["subject"] = subject
        container["claims"] = claims.map(StoredJSON.text)
        container["tokenHash"] = tokenHash
        container["tokenExpiresAt"] = tokenExpiresAt
        container["usedAt"] = usedAt
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}

extension LinkedIdentity: FetchableRecord, PersistableRecord {
    public static let databaseTableName = "identities"

    public init(row: Row) throws {
        self.init(provider: row["provider"], subject: row["subject"], userID: row["userID"], email: row["email"], linkedAt: row["linkedAt"])
        lastUsedAt = row["lastUsedAt"]
    }

    public func encode(to container: inout PersistenceContainer) throws {
        container["provider"] = provider
        container["subject"] = subject
        container["userID"] = userID
        container["email"] = email
        container["linkedAt"] = linkedAt
        container["lastUsedAt"] = lastUsedAt
    }
}

extension DatabaseError {
    var isUniqueViolation: Bool { extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE }
}
