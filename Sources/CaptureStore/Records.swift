import CaptureCore
import GRDB

// Core's value types are stored as they are; columns carry the property names.

extension User: FetchableRecord, PersistableRecord {
    public static let databaseTableName = "users"

    /// Stored profiles were written by this service, but an operator may edit the file: read them within
    /// generous limits, and a document that is not a JSON object reads as an empty profile.
    static let storedProfileLimits = JSONParser.Limits(
        maxInputBytes: 1 << 20, maxDepth: 32, maxValues: 100_000, maxStringBytes: 1 << 20, maxNumberBytes: 64)

    public init(row: Row) throws {
        self.init(id: row["id"], email: row["email"], passwordHash: row["passwordHash"], createdAt: row["createdAt"])
        number = row["number"]
        let text: String = row["profile"] ?? "{}"
        if case .object(let members) = try? JSONParser.parse(text, limits: Self.storedProfileLimits) { profile = members }
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
        container["profile"] = String(decoding: JSONValue.object(profile).encodedBytes(), as: UTF8.self)
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

extension TokenRecord: FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "tokens"

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

extension DatabaseError {
    var isUniqueViolation: Bool { extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE }
}
