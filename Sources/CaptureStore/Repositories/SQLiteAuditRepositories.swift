import CaptureCore
import Foundation
import GRDB

/// The audit log in SQLite, newest first by id.
struct SQLiteAuditRepository: AuditRepository {
    let writer: MeteredDatabase

    func append(_ entry: AuditEntry) async throws {
        let client = ChangeOrigin.client
        try await writer.write { db in
            try AuditRow.insert(entry, in: db)
            // A security event the webhooks tell, about the user the row names (by id, or by address).
            guard WebhookEvents.securityType(entry.action) != nil else { return }
            var userID: String? = entry.target
            if entry.target.contains("@") {
                userID = try String.fetchOne(
                    db, sql: "SELECT id FROM users WHERE email = ?", arguments: [entry.target.lowercased()])
            }
            guard let userID else { return }
            try SQLiteWebhookRepository.raise(
                .audited(action: entry.action, userID: userID, outcome: entry.outcome, detail: entry.detail), client: client,
                in: db)
        }
    }

    func list(_ filter: AuditFilter) async throws -> [AuditEntry] {
        try await writer.read { db in
            var request = AuditRow.all()
            if let actor = filter.actor { request = request.filter(Column("actor") == actor) }
            if let action = filter.action { request = request.filter(Column("action") == action) }
            if let target = filter.target { request = request.filter(Column("target") == target) }
            return try request.order(Column("id").desc).limit(filter.page.limit, offset: filter.page.offset).values(db)
        }
    }

    func purge(before cutoff: Date) async throws -> Int {
        try await writer.write { db in try AuditRow.filter(Column("at") < cutoff).deleteAll(db) }
    }
}

/// Admin keys in SQLite.
struct SQLiteAdminKeyRepository: AdminKeyRepository {
    let writer: MeteredDatabase

    func insert(_ key: AdminKey) async throws {
        try await writer.write { db in try AdminKeyRow(key).insert(db) }
    }

    func find(id: String) async throws -> AdminKey? {
        try await writer.read { db in try AdminKeyRow.fetchOne(db, key: id)?.value }
    }

    func list() async throws -> [AdminKey] {
        try await writer.read { db in try AdminKeyRow.order(Column("createdAt"), Column("id")).values(db) }
    }

    func revoke(id: String, at: Date) async throws -> Bool {
        try await writer.write { db in
            try AdminKeyRow.filter(Column("id") == id && Column("revokedAt") == nil).updateAll(
                db, Column("revokedAt").set(to: at))
                > 0
        }
    }
}
