import CaptureCore
import Foundation
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
        deleteRequestedAt = row["deleteRequestedAt"]
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
        container["deleteRequestedAt"] = deleteRequestedAt
    }
}

/// The hot paths' reads select these columns by name and decode them by position: a lookup by name lower-cases the
/// name and searches the statement's columns, for each column of each row.
extension User {
    static let selection = """
        users.id, users.email, users.passwordHash, users.createdAt, users.number, users.profile, users.lastElementID,
        users.emailVerifiedAt, users.updatedAt, users.lastLoginAt, users.disabledAt, users.deleteRequestedAt
        """
    static let selectionCount = 12

    /// A user from `selection`'s columns, the first at `start`; without `parsingProfile`, its profile is left empty
    /// (see `storedProfile`).
    init(row: SelectedColumns, selectionAt start: Int, parsingProfile: Bool = true) {
        func date(_ offset: Int) -> Date? { (row[start + offset] as StoredInstant?)?.date }
        let created: StoredInstant = row[start + 3]
        self.init(id: row[start], email: row[start + 1], passwordHash: row[start + 2], createdAt: created.date)
        number = row[start + 4]
        if parsingProfile { profile = StoredJSON.object(Self.storedProfile(row, selectionAt: start)) ?? [:] }
        lastElementID = row[start + 6] ?? 0
        emailVerifiedAt = date(7)
        updatedAt = (row[start + 8] as StoredInstant).date
        lastLoginAt = date(9)
        disabledAt = date(10)
        deleteRequestedAt = date(11)
    }

    /// The stored profile's text among `selection`'s columns, the first at `start`.
    static func storedProfile(_ row: SelectedColumns, selectionAt start: Int) -> String {
        row[start + 5] ?? "{}"
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
        device = row["device"]
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
        container["device"] = device
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}

extension TokenRecord {
    /// The columns `init(row:selectionAt:)` reads, in its order (see `User.selection`).
    static let selection = """
        tokens.id, tokens.kind, tokens.hash, tokens.userID, tokens.clientID, tokens.chainID, tokens.scope,
        tokens.authProvider, tokens.issuedAt, tokens.expiresAt, tokens.usedAt, tokens.revokedAt, tokens.refreshSecret,
        tokens.redirectURI, tokens.codeChallenge, tokens.device
        """
    static let selectionCount = 16

    /// A token from `selection`'s columns, the first at `start`.
    init(row: SelectedColumns, selectionAt start: Int) {
        let (issued, expires): (StoredInstant, StoredInstant) = (row[start + 8], row[start + 9])
        self.init(
            kind: TokenKind(rawValue: row[start + 1]) ?? .device, hash: row[start + 2], userID: row[start + 3],
            clientID: row[start + 4], chainID: row[start + 5], scope: row[start + 6], authProvider: row[start + 7],
            issuedAt: issued.date, expiresAt: expires.date, refreshSecret: row[start + 12])
        id = row[start]
        usedAt = (row[start + 10] as StoredInstant?)?.date
        revokedAt = (row[start + 11] as StoredInstant?)?.date
        redirectURI = row[start + 13]
        codeChallenge = row[start + 14]
        device = row[start + 15]
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
        initiatorChallenge = row["initiatorChallenge"]
        providerToken = row["providerToken"]
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
        container["initiatorChallenge"] = initiatorChallenge
        container["providerToken"] = providerToken
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}

extension LinkedIdentity: FetchableRecord, PersistableRecord {
    public static let databaseTableName = "identities"

    public init(row: Row) throws {
        self.init(
            provider: row["provider"], subject: row["subject"], userID: row["userID"], email: row["email"],
            vouched: row["vouched"], linkedAt: row["linkedAt"], providerToken: row["providerToken"])
        lastUsedAt = row["lastUsedAt"]
    }

    public func encode(to container: inout PersistenceContainer) throws {
        container["provider"] = provider
        container["subject"] = subject
        container["userID"] = userID
        container["email"] = email
        container["vouched"] = vouched
        container["linkedAt"] = linkedAt
        container["lastUsedAt"] = lastUsedAt
        container["providerToken"] = providerToken
    }
}

extension ProviderRevocation: FetchableRecord {
    public init(row: Row) throws {
        self.init(
            id: row["id"], provider: row["provider"], sealedToken: row["sealedToken"], attempts: row["attempts"],
            nextAttemptAt: row["nextAttemptAt"], lastError: row["lastError"], queuedAt: row["queuedAt"])
    }
}

/// The public key as base64url text, the transports as a JSON array.
extension Passkey: FetchableRecord, PersistableRecord {
    public static let databaseTableName = "passkeys"

    public init(row: Row) throws {
        self.init(
            credentialID: row["credentialID"], userID: row["userID"], name: row["name"],
            publicKey: StoredBytes.bytes(row["publicKey"]), signCount: UInt32(clamping: row["signCount"] as Int64),
            backupEligible: row["backupEligible"], backedUp: row["backedUp"], transports: StoredList.list(row["transports"]),
            createdAt: row["createdAt"])
        lastUsedAt = row["lastUsedAt"]
    }

    public func encode(to container: inout PersistenceContainer) throws {
        container["credentialID"] = credentialID
        container["userID"] = userID
        container["name"] = name
        container["publicKey"] = StoredBytes.text(publicKey)
        container["signCount"] = Int64(signCount)
        container["backupEligible"] = backupEligible
        container["backedUp"] = backedUp
        container["transports"] = StoredList.text(transports)
        container["createdAt"] = createdAt
        container["lastUsedAt"] = lastUsedAt
    }
}

/// A row of a kind this build does not know is an error, never read as another kind.
extension PendingCeremony: FetchableRecord, PersistableRecord {
    public static let databaseTableName = "ceremonies"

    public init(row: Row) throws {
        let kind: String = row["kind"]
        guard let known = Kind(rawValue: kind) else { throw CaptureError.unexpected("a ceremony of unknown kind \(kind)") }
        self.init(
            hash: row["hash"], kind: known, userID: row["userID"], clientID: row["clientID"], payload: row["payload"],
            createdAt: row["createdAt"], expiresAt: row["expiresAt"])
        attempts = row["attempts"]
    }

    public func encode(to container: inout PersistenceContainer) throws {
        container["hash"] = hash
        container["kind"] = kind.rawValue
        container["userID"] = userID
        container["clientID"] = clientID
        container["payload"] = payload
        container["attempts"] = attempts
        container["createdAt"] = createdAt
        container["expiresAt"] = expiresAt
    }
}

/// The recovery hashes as a JSON array.
extension SecondFactor: FetchableRecord, PersistableRecord {
    public static let databaseTableName = "second_factors"

    public init(row: Row) throws {
        self.init(
            userID: row["userID"], sealedSecret: row["sealedSecret"], recoveryHashes: StoredList.list(row["recoveryHashes"]),
            createdAt: row["createdAt"])
        lastStep = row["lastStep"]
    }

    public func encode(to container: inout PersistenceContainer) throws {
        container["userID"] = userID
        container["sealedSecret"] = sealedSecret
        container["lastStep"] = lastStep
        container["recoveryHashes"] = StoredList.text(recoveryHashes)
        container["createdAt"] = createdAt
    }
}

/// A list of texts as a column keeps it: a JSON array, as GRDB stores a `Codable` record's lists. Text that is not
/// one reads as an empty list.
enum StoredList {
    static func text(_ list: [String]) -> String {
        String(decoding: (try? JSONEncoder().encode(list)) ?? Data("[]".utf8), as: UTF8.self)
    }

    static func list(_ text: String?) -> [String] {
        text.flatMap { try? JSONDecoder().decode([String].self, from: Data($0.utf8)) } ?? []
    }
}

/// Bytes as a column keeps them: base64url text, which both backends and `capturectl db copy` carry as text.
enum StoredBytes {
    static func text(_ bytes: [UInt8]) -> String {
        Data(bytes).base64URLEncoded()
    }

    static func bytes(_ text: String) -> [UInt8] {
        Data(base64URLEncoded: text).map { Array($0) } ?? []
    }
}

extension DatabaseError {
    var isUniqueViolation: Bool { extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE }
}
