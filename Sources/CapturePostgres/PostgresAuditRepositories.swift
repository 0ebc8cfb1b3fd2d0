import CaptureCore
import Foundation
import PostgresNIO

/// The audit log in PostgreSQL, newest first by id.
struct PostgresAuditRepository: AuditRepository {
    let store: PostgresStore

    func append(_ entry: AuditEntry) async throws {
        let insert: PostgresQuery = """
            INSERT INTO audit_log (at, actor, action, target, outcome, detail)
            VALUES (\(entry.at), \(entry.actor), \(entry.action), \(entry.target), \(entry.outcome), \(entry.detail))
            """
        guard WebhookEvents.securityType(entry.action) != nil else {
            _ = try await store.query(insert)
            return
        }
        // A security event the webhooks tell, about the user the row names (by id, or by address), with the row.
        let client = ChangeOrigin.client
        try await store.transaction { connection in
            try await connection.rows(insert)
            var userID: String? = entry.target
            if entry.target.contains("@") {
                userID = try await connection.rows("SELECT id FROM users WHERE lower(email) = lower(\(entry.target))")
                    .first.map { try Columns($0)("id", as: String.self) }
            }
            guard let userID else { return }
            try await PostgresWebhookRepository.raise(
                .audited(action: entry.action, userID: userID, outcome: entry.outcome, detail: entry.detail),
                client: client, on: connection)
        }
    }

    func list(_ filter: AuditFilter) async throws -> [AuditEntry] {
        // A filter left out matches every row (NULL parameters), so one statement serves every combination.
        try await store.query(
            """
            SELECT * FROM audit_log
            WHERE (\(filter.actor)::text IS NULL OR actor = \(filter.actor))
                AND (\(filter.action)::text IS NULL OR action = \(filter.action))
                AND (\(filter.target)::text IS NULL OR target = \(filter.target))
            ORDER BY id DESC LIMIT \(filter.page.limit) OFFSET \(filter.page.offset)
            """
        ).map(Self.record)
    }

    static func record(_ row: PostgresRow) throws -> AuditEntry {
        let c = Columns(row)
        return AuditEntry(
            id: try c("id"), at: try c("at"), actor: try c("actor"), action: try c("action"), target: try c("target"),
            outcome: try c("outcome"), detail: try c("detail"))
    }

    func purge(before cutoff: Date) async throws -> Int {
        try await store.query(
            "WITH gone AS (DELETE FROM audit_log WHERE at < \(cutoff) RETURNING 1) SELECT count(*) AS n FROM gone"
        ).first.map { try Columns($0)("n", as: Int.self) } ?? 0
    }
}

/// Admin keys in PostgreSQL.
struct PostgresAdminKeyRepository: AdminKeyRepository {
    let store: PostgresStore

    func insert(_ key: AdminKey) async throws {
        try await store.query(
            """
            INSERT INTO admin_keys (id, name, secret_hash, created_at, revoked_at)
            VALUES (\(key.id), \(key.name), \(key.secretHash), \(key.createdAt), \(key.revokedAt))
            """)
    }

    func find(id: String) async throws -> AdminKey? {
        try await store.query("SELECT * FROM admin_keys WHERE id = \(id)").first.map(Self.record)
    }

    func list() async throws -> [AdminKey] {
        try await store.query("SELECT * FROM admin_keys ORDER BY created_at, id").map(Self.record)
    }

    func revoke(id: String, at: Date) async throws -> Bool {
        try await !store.query(
            "UPDATE admin_keys SET revoked_at = \(at) WHERE id = \(id) AND revoked_at IS NULL RETURNING 1"
        ).isEmpty
    }

    static func record(_ row: PostgresRow) throws -> AdminKey {
        let c = Columns(row)
        return AdminKey(
            id: try c("id"), name: try c("name"), secretHash: try c("secret_hash"), createdAt: try c("created_at"),
            revokedAt: try c("revoked_at"))
    }
}
