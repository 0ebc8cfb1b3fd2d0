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
                    next_attempt_at, last_error, deferrals, created_at, sent_at, body_expires_at)
                VALUES (\(entry.messageID), \(entry.kind.rawValue), \(entry.recipient), \(entry.userID),
                    \(entry.subject), \(entry.text), \(entry.html), \(entry.status.rawValue), \(entry.attempts),
                    \(entry.nextAttemptAt), \(entry.lastError), \(entry.deferrals), \(entry.createdAt), \(entry.sentAt),
                    \(entry.bodyExpiresAt))
                RETURNING id
                """
            ).first.map { try Columns($0)("id", as: Int64.self) }
            return stored
        }
    }

    private static let pending = OutboxEntry.Status.pending.rawValue
    private static let deferred = OutboxEntry.Status.deferred.rawValue

    func claimDue(at now: Date, lease: Date, limit: Int) async throws -> [OutboxEntry] {
        // Rows another instance is claiming right now are skipped, not waited for.
        try await store.query(
            """
            UPDATE outbox SET next_attempt_at = \(lease), status = \(Self.pending) WHERE id IN (
                SELECT id FROM outbox
                WHERE status IN (\(Self.pending), \(Self.deferred)) AND next_attempt_at <= \(now)
                ORDER BY next_attempt_at, attempts, id LIMIT \(limit) FOR UPDATE SKIP LOCKED)
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
                deferrals = \(entry.deferrals), created_at = \(entry.createdAt), sent_at = \(entry.sentAt), body_expires_at = \(entry.bodyExpiresAt)
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
            "SELECT count(*) AS n FROM outbox WHERE status IN (\(Self.pending), \(Self.deferred))"
        ).first.map { try Columns($0)("n", as: Int.self) } ?? 0
    }

    func oldestWaiting() async throws -> Date? {
        try await store.query(
            "SELECT min(created_at) AS oldest FROM outbox WHERE status IN (\(Self.pending), \(Self.deferred))"
        ).first.flatMap { try Columns($0)("oldest", as: Date?.self) }
    }

    func deferWaiting(because reason: String, at now: Date, pauses: [TimeInterval]) async throws -> Date {
        try await store.transaction { connection in
            let run = try await connection.rows(
                "SELECT max(deferrals) AS run FROM outbox WHERE status IN (\(Self.pending), \(Self.deferred))"
            ).first.flatMap { try Columns($0)("run", as: Int?.self) }
            let until = now + MailDelivery.pause(after: (run ?? 0) + 1, in: pauses)
            try await connection.rows(
                """
                UPDATE outbox SET status = \(Self.deferred), last_error = \(reason), deferrals = deferrals + 1,
                    next_attempt_at = greatest(next_attempt_at, \(until))
                WHERE status IN (\(Self.pending), \(Self.deferred))
                """)
            return until
        }
    }

    func resumeDeferred(at now: Date, relayWorks: Bool) async throws -> Int {
        try await store.transaction { connection in
            let resumed =
                try await connection.rows(
                    """
                    WITH resumed AS (
                        UPDATE outbox SET status = \(Self.pending), next_attempt_at = \(now) WHERE status = \(Self.deferred)
                        RETURNING 1)
                    SELECT count(*) AS n FROM resumed
                    """
                ).first.map { try Columns($0)("n", as: Int.self) } ?? 0
            if relayWorks {
                try await connection.rows(
                    "UPDATE outbox SET deferrals = 0 WHERE status = \(Self.pending) AND deferrals > 0")
            }
            return resumed
        }
    }

    func relayPausedUntil() async throws -> Date? {
        try await store.query(
            "SELECT min(next_attempt_at) AS until FROM outbox WHERE status = \(Self.deferred)"
        ).first.flatMap { try Columns($0)("until", as: Date?.self) }
    }

    func forgetBodies(at now: Date) async throws -> Int {
        try await store.transaction { connection in
            let expired =
                try await connection.rows(
                    """
                    WITH expired AS (
                        UPDATE outbox SET status = \(OutboxEntry.Status.failed.rawValue), text = NULL, html = NULL,
                            last_error = \(MailDelivery.expiredBeforeDelivery)
                                || CASE WHEN last_error IS NULL THEN '' ELSE ' (it waited: ' || last_error || ')' END
                        WHERE status IN (\(Self.pending), \(Self.deferred)) AND body_expires_at <= \(now)
                        RETURNING 1)
                    SELECT count(*) AS n FROM expired
                    """
                ).first.map { try Columns($0)("n", as: Int.self) } ?? 0
            let cleared =
                try await connection.rows(
                    """
                    WITH cleared AS (
                        UPDATE outbox SET text = NULL, html = NULL
                        WHERE (text IS NOT NULL OR html IS NOT NULL)
                            AND (status IN (\(OutboxEntry.Status.sent.rawValue), \(OutboxEntry.Status.suppressed.rawValue))
                                OR body_expires_at <= \(now))
                        RETURNING 1)
                    SELECT count(*) AS n FROM cleared
                    """
                ).first.map { try Columns($0)("n", as: Int.self) } ?? 0
            return expired + cleared
        }
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
        entry.deferrals = try c("deferrals")
        entry.sentAt = try c("sent_at")
        return entry
    }
}
