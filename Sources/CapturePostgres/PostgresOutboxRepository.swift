import CaptureCore
import Foundation
import PostgresNIO

/// The outbox in PostgreSQL.
struct PostgresOutboxRepository: OutboxRepository {
    let store: PostgresStore

    func record(_ entry: OutboxEntry, issuing code: OneTimeCode?) async throws -> OutboxEntry {
        try await store.transaction { connection in
            if let code { try await PostgresCodeRepository.issue(code, on: connection) }
            var stored = entry
            stored.id = try await connection.rows(
                """
                INSERT INTO outbox (message_id, kind, recipient, user_id, subject, text, html, status, attempts,
                    next_attempt_at, last_error, created_at, sent_at, body_expires_at)
                VALUES (\(entry.messageID), \(entry.kind.rawValue), \(entry.recipient), \(entry.userID),
                    \(entry.subject), \(entry.text), \(entry.html), \(entry.status.rawValue), \(entry.attempts),
                    \(entry.nextAttemptAt), \(entry.lastError), \(entry.createdAt), \(entry.sentAt),
                    \(entry.bodyExpiresAt))
                RETURNING id
                """
            ).first.map { try Columns($0)("id", as: Int64.self) }
            return stored
        }
    }

    func claimDue(at now: Date, lease: Date, limit: Int) async throws -> [OutboxEntry] {
        // Rows another instance is claiming right now are skipped, not waited for.
        try await store.query(
            """
            UPDATE outbox SET next_attempt_at = \(lease) WHERE id IN (
                SELECT id FROM outbox
                WHERE status = \(OutboxEntry.Status.pending.rawValue) AND next_attempt_at <= \(now)
                ORDER BY next_attempt_at, id LIMIT \(limit) FOR UPDATE SKIP LOCKED)
            RETURNING *
            """
        ).map(Self.record).sorted { $0.id ?? 0 < $1.id ?? 0 }
    }

    func update(_ entry: OutboxEntry) async throws {
        guard let id = entry.id else { return }
        try await store.query(
            """
            UPDATE outbox SET message_id = \(entry.messageID), kind = \(entry.kind.rawValue),
                recipient = \(entry.recipient), user_id = \(entry.userID), subject = \(entry.subject),
                text = \(entry.text), html = \(entry.html), status = \(entry.status.rawValue),
                attempts = \(entry.attempts), next_attempt_at = \(entry.nextAttemptAt), last_error = \(entry.lastError),
                created_at = \(entry.createdAt), sent_at = \(entry.sentAt), body_expires_at = \(entry.bodyExpiresAt)
            WHERE id = \(id)
            """)
    }

    func find(id: Int64) async throws -> OutboxEntry? {
        try await store.query("SELECT * FROM outbox WHERE id = \(id)").first.map(Self.record)
    }

    func list(limit: Int) async throws -> [OutboxEntry] {
        try await store.query("SELECT * FROM outbox ORDER BY id DESC LIMIT \(limit)").map(Self.record)
    }

    func pendingCount() async throws -> Int {
        try await store.query(
            "SELECT count(*) AS n FROM outbox WHERE status = \(OutboxEntry.Status.pending.rawValue)"
        ).first.map { try Columns($0)("n", as: Int.self) } ?? 0
    }

    func forgetBodies(at now: Date) async throws -> Int {
        try await store.query(
            """
            WITH cleared AS (
                UPDATE outbox SET text = NULL, html = NULL
                WHERE (text IS NOT NULL OR html IS NOT NULL)
                    AND (status <> \(OutboxEntry.Status.pending.rawValue) OR body_expires_at <= \(now))
                RETURNING 1)
            SELECT count(*) AS n FROM cleared
            """
        ).first.map { try Columns($0)("n", as: Int.self) } ?? 0
    }

    /// PostgreSQL keeps an updated row's old version until VACUUM reclaims it: vacuum the table so cleared bodies
    /// leave its pages (the write-ahead log is recycled by the server's own checkpoints).
    func scrub() async throws {
        try await store.query("VACUUM outbox")
    }

    static func record(_ row: PostgresRow) throws -> OutboxEntry {
        let c = Columns(row)
        var entry = OutboxEntry(
            messageID: try c("message_id"), kind: OutboxEntry.Kind(rawValue: try c("kind")) ?? .passwordReset,
            recipient: try c("recipient"), userID: try c("user_id"), subject: try c("subject"), text: try c("text"),
            html: try c("html"), status: OutboxEntry.Status(rawValue: try c("status")) ?? .failed,
            createdAt: try c("created_at"), bodyExpiresAt: try c("body_expires_at"))
        entry.id = try c("id")
        entry.attempts = try c("attempts")
        entry.nextAttemptAt = try c("next_attempt_at")
        entry.lastError = try c("last_error")
        entry.sentAt = try c("sent_at")
        return entry
    }
}
