import CaptureCore
import GRDB

// Core's value types are stored as they are; columns carry the property names.

extension User: FetchableRecord, PersistableRecord {
    public static let databaseTableName = "users"
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
