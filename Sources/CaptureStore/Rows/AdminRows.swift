import CaptureCore
import Foundation
import GRDB

/// A row of `audit_log` and its mapping to and from `AuditEntry`.
struct AuditRow: GeneratedIDRow {
    static let databaseTableName = "audit_log"
    var value: AuditEntry

    init(_ value: AuditEntry) {
        self.value = value
    }

    var id: Int64? {
        get { value.id }
        set { value.id = newValue }
    }

    init(row: Row) throws {
        value = AuditEntry(
            id: row["id"], at: row["at"], actor: row["actor"], action: row["action"], target: row["target"],
            outcome: row["outcome"], detail: row["detail"])
    }

    func encode(to container: inout PersistenceContainer) throws {
        container["id"] = value.id
        container["at"] = value.at
        container["actor"] = value.actor
        container["action"] = value.action
        container["target"] = value.target
        container["outcome"] = value.outcome
        container["detail"] = value.detail
    }
}

/// A row of `admin_keys` and its mapping to and from `AdminKey`.
struct AdminKeyRow: StoredRow, PersistableRecord {
    static let databaseTableName = "admin_keys"
    let value: AdminKey

    init(_ value: AdminKey) {
        self.value = value
    }

    init(row: Row) throws {
        value = AdminKey(
            id: row["id"], name: row["name"], secretHash: row["secretHash"], createdAt: row["createdAt"],
            revokedAt: row["revokedAt"])
    }

    func encode(to container: inout PersistenceContainer) throws {
        container["id"] = value.id
        container["name"] = value.name
        container["secretHash"] = value.secretHash
        container["createdAt"] = value.createdAt
        container["revokedAt"] = value.revokedAt
    }
}
