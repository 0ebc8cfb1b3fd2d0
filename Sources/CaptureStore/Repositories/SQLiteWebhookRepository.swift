import CaptureCore
import Foundation
import GRDB

/// Webhook subscriptions and their events in SQLite. One writer: a claim is a write, so two processes on one file
/// never claim the same event.
struct SQLiteWebhookRepository: WebhookRepository {
    let writer: MeteredDatabase

    private static let pending = WebhookEvent.Status.pending.rawValue
    private static let failed = WebhookEvent.Status.failed.rawValue

    // MARK: the seam of the record's writes

    /// Inserts the events `change` raises (`WebhookEvents.raised`) in the write's own transaction; nothing when no
    /// subscription is enabled (one indexed read).
    static func raise(_ change: RecordChange, client: String?, in db: Database) throws {
        let subscriptions = try enabledSubscriptions(in: db)
        guard !subscriptions.isEmpty else { return }
        for event in WebhookEvents.raised(by: change, for: subscriptions, client: client, at: Date()) {
            try WebhookEventRow.insert(event, in: db)
        }
    }

    /// Whether any subscription is enabled: one integer, so a write that raises nothing pays no rows' decoding.
    static func anyEnabled(in db: Database) throws -> Bool {
        try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM webhook_subscriptions WHERE enabled)")) ?? false
    }

    static func enabledSubscriptions(in db: Database) throws -> [WebhookSubscription] {
        try WebhookSubscriptionRow.fetchAll(db.cachedStatement(sql: "SELECT * FROM webhook_subscriptions WHERE enabled"))
            .map(\.value)
    }

    // MARK: subscriptions

    func insert(_ subscription: WebhookSubscription) async throws {
        do {
            try await writer.write { db in try WebhookSubscriptionRow(subscription).insert(db) }
        } catch let error as DatabaseError where error.isUniqueViolation {
            throw CaptureError.invalidArgument("title", "another subscription has this title")
        }
    }

    func update(_ subscription: WebhookSubscription) async throws {
        do {
            try await writer.write { db in try WebhookSubscriptionRow(subscription).update(db) }
        } catch let error as DatabaseError where error.isUniqueViolation {
            throw CaptureError.invalidArgument("title", "another subscription has this title")
        }
    }

    func subscription(id: String) async throws -> WebhookSubscription? {
        try await writer.read { db in try WebhookSubscriptionRow.fetchOne(db, key: id)?.value }
    }

    func subscriptions() async throws -> [WebhookSubscription] {
        try await writer.read { db in
            try WebhookSubscriptionRow.order(Column("createdAt"), Column("id")).values(db)
        }
    }

    func remove(id: String) async throws -> Bool {
        try await writer.write { db in try WebhookSubscriptionRow.deleteOne(db, key: id) }
    }

    // MARK: events

    func record(_ events: [WebhookEvent]) async throws {
        try await writer.write { db in
            for event in events { try WebhookEventRow.insert(event, in: db) }
        }
    }

    func claimDue(at now: Date, lease: Date, limit: Int) async throws -> [WebhookEvent] {
        try await writer.write { db in
            let due = try WebhookEventRow.fetchAll(
                db,
                sql: """
                    SELECT e.* FROM webhook_events e JOIN webhook_subscriptions s ON s.id = e.subscriptionID
                    WHERE e.status = ? AND e.nextAttemptAt <= ? AND s.enabled AND NOT EXISTS (
                        SELECT 1 FROM webhook_events b WHERE b.subscriptionID = e.subscriptionID
                        AND b.userID IS e.userID AND b.status = ? AND b.id < e.id)
                    ORDER BY e.id LIMIT ?
                    """, arguments: [Self.pending, now, Self.pending, limit])
            var claimed: [WebhookEvent] = []
            for var row in due {
                row.value.nextAttemptAt = lease
                try row.update(db, columns: ["nextAttemptAt"])
                claimed.append(row.value)
            }
            return claimed
        }
    }

    func finish(_ event: WebhookEvent, attempt: WebhookAttempt) async throws {
        try await writer.write { db in
            try WebhookEventRow(event).update(db)
            try db.execute(
                sql: "INSERT INTO webhook_attempts (eventID, at, status, milliseconds, error) VALUES (?, ?, ?, ?, ?)",
                arguments: [attempt.eventSequence, attempt.at, attempt.status, attempt.milliseconds, attempt.error])
        }
    }

    func disable(subscriptionID: String, reason: String, at now: Date) async throws {
        try await writer.write { db in
            try db.execute(
                sql: "UPDATE webhook_subscriptions SET enabled = 0, disabledReason = ?, updatedAt = ? WHERE id = ?",
                arguments: [reason, now, subscriptionID])
            try db.execute(
                sql: "UPDATE webhook_events SET status = ?, lastError = ? WHERE subscriptionID = ? AND status = ?",
                arguments: [Self.failed, reason, subscriptionID, Self.pending])
        }
    }

    func events(_ query: WebhookEventQuery) async throws -> [WebhookEvent] {
        try await writer.read { db in
            try Self.selected(query).order(Column("id").desc).limit(query.page.limit, offset: query.page.offset)
                .values(db)
        }
    }

    func events(id: String) async throws -> [WebhookEvent] {
        try await writer.read { db in try WebhookEventRow.filter(Column("messageID") == id).order(Column("id")).values(db) }
    }

    func attempts(of sequence: Int64) async throws -> [WebhookAttempt] {
        try await writer.read { db in
            try WebhookAttemptRow.filter(Column("eventID") == sequence).order(Column("id")).values(db).map(\.attempt)
        }
    }

    func redeliver(id: String?, query: WebhookEventQuery) async throws -> Int {
        try await writer.write { db in
            var request = Self.selected(query).filter(Column("status") == Self.failed)
            if let id { request = request.filter(Column("messageID") == id) }
            return try request.updateAll(
                db, Column("status").set(to: Self.pending), Column("attempts").set(to: 0),
                Column("nextAttemptAt").set(to: Date(timeIntervalSince1970: 0)))
        }
    }

    func purge(before cutoff: Date) async throws -> Int {
        try await writer.write { db in
            try WebhookEventRow.filter(Column("status") != Self.pending && Column("createdAt") < cutoff).deleteAll(db)
        }
    }

    func backlog() async throws -> WebhookBacklog {
        try await writer.read { db in
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT count(*) FILTER (WHERE status = ?) AS pending, count(*) FILTER (WHERE status = ?) AS failed,
                        min(createdAt) FILTER (WHERE status = ?) AS oldest FROM webhook_events
                    """, arguments: [Self.pending, Self.failed, Self.pending])
            let pending: Int = row.flatMap { $0["pending"] } ?? 0
            let failed: Int = row.flatMap { $0["failed"] } ?? 0
            let oldest: Date? = row.flatMap { $0["oldest"] }
            return WebhookBacklog(pending: pending, failed: failed, oldestPending: oldest)
        }
    }

    private static func selected(_ query: WebhookEventQuery) -> QueryInterfaceRequest<WebhookEventRow> {
        var request = WebhookEventRow.all()
        if let id = query.subscriptionID { request = request.filter(Column("subscriptionID") == id) }
        if let status = query.status { request = request.filter(Column("status") == status.rawValue) }
        if let since = query.since { request = request.filter(Column("createdAt") >= since) }
        if let until = query.until { request = request.filter(Column("createdAt") < until) }
        return request
    }
}
