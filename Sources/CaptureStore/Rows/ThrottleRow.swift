import CaptureCore
import GRDB

/// A row of `throttle`: a hashed key's counter.
struct ThrottleRow: StoredRow, PersistableRecord {
    static let databaseTableName = "throttle"
    let value: StoredThrottle

    init(_ value: StoredThrottle) {
        self.value = value
    }

    init(row: Row) throws {
        value = StoredThrottle(
            key: row["key"], state: ThrottleState(level: row["level"], updatedAt: row["updatedAt"], expiresAt: row["expiresAt"]))
    }

    func encode(to container: inout PersistenceContainer) throws {
        container["key"] = value.key
        container["level"] = value.state.level
        container["updatedAt"] = value.state.updatedAt
        container["expiresAt"] = value.state.expiresAt
    }
}
