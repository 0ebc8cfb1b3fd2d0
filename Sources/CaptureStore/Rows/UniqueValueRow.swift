import CaptureCore
import GRDB

/// A row of `user_unique`: a unique schema attribute's value and the record that claims it.
struct UniqueValueRow: StoredRow, PersistableRecord {
    static let databaseTableName = "user_unique"
    let value: UniqueValueClaim

    init(_ value: UniqueValueClaim) {
        self.value = value
    }

    init(row: Row) throws {
        value = UniqueValueClaim(attribute: row["attribute"], value: row["value"], userID: row["userID"])
    }

    func encode(to container: inout PersistenceContainer) throws {
        container["attribute"] = value.attribute
        container["value"] = value.value
        container["userID"] = value.userID
    }
}
