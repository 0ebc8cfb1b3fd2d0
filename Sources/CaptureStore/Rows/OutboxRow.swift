import CaptureCore
import Foundation
import GRDB

/// A row of `outbox` and its mapping to and from `OutboxEntry`. A kind or status this build does not know is an error.
struct OutboxRow: GeneratedIDRow {
    static let databaseTableName = "outbox"
    var value: OutboxEntry

    init(_ value: OutboxEntry) {
        self.value = value
    }

    var id: Int64? {
        get { value.id }
        set { value.id = newValue }
    }

    init(row: Row) throws {
        let (kind, status): (String, String) = (row["kind"], row["status"])
        guard let knownKind = OutboxEntry.Kind(rawValue: kind), let knownStatus = OutboxEntry.Status(rawValue: status) else {
            throw CaptureError.unexpected("an outbox entry of unknown kind \(kind) or status \(status)")
        }
        var entry = OutboxEntry(
            messageID: row["messageID"], kind: knownKind, recipient: row["recipient"], userID: row["userID"],
            subject: row["subject"], text: row["text"], html: row["html"], status: knownStatus, createdAt: row["createdAt"],
            bodyExpiresAt: row["bodyExpiresAt"])
        entry.id = row["id"]
        entry.attempts = row["attempts"]
        entry.nextAttemptAt = row["nextAttemptAt"]
        entry.lastError = row["lastError"]
        entry.deferrals = row["deferrals"]
        entry.sentAt = row["sentAt"]
        value = entry
    }

    func encode(to container: inout PersistenceContainer) throws {
        container["id"] = value.id
        container["messageID"] = value.messageID
        container["kind"] = value.kind.rawValue
        container["recipient"] = value.recipient
        container["userID"] = value.userID
        container["subject"] = value.subject
        container["text"] = value.text
        container["html"] = value.html
        container["status"] = value.status.rawValue
        container["attempts"] = value.attempts
        container["nextAttemptAt"] = value.nextAttemptAt
        container["lastError"] = value.lastError
        container["deferrals"] = value.deferrals
        container["createdAt"] = value.createdAt
        container["sentAt"] = value.sentAt
        container["bodyExpiresAt"] = value.bodyExpiresAt
    }
}
