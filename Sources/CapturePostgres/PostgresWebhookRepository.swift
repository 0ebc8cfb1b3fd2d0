import CaptureCore
import Foundation
import PostgresNIO

/// Webhook subscriptions and their events in PostgreSQL. Instances share the events: a claim locks the rows it takes
/// and skips those another instance is claiming (`FOR UPDATE SKIP LOCKED`), so no event is delivered twice at once.
struct PostgresWebhookRepository: WebhookRepository {
    let store: PostgresStore

    private static let pending = WebhookEvent.Status.pending.rawValue
    private static let failed = WebhookEvent.Status.failed.rawValue

    // MARK: the seam of the record's writes

    /// Inserts the events `change` raises (`WebhookEvents.raised`) in the write's own transaction; nothing when no
    /// subscription is enabled.
    static func raise(_ change: RecordChange, client: String?, on connection: PostgresConnection) async throws {
        try await raise(change, client: client, to: enabledSubscriptions(on: connection), on: connection)
    }

    static func raise(
        _ change: RecordChange, client: String?, to subscriptions: [WebhookSubscription], on connection: PostgresConnection
    ) async throws {
        guard !subscriptions.isEmpty else { return }
        for event in WebhookEvents.raised(by: change, for: subscriptions, client: client, at: Date()) {
            try await insert(event, on: connection)
        }
    }

    static func enabledSubscriptions(on connection: PostgresConnection) async throws -> [WebhookSubscription] {
        try await connection.rows("SELECT * FROM webhook_subscriptions WHERE enabled").map(subscription)
    }

    private static func insert(_ event: WebhookEvent, on connection: PostgresConnection) async throws {
        try await connection.rows(
            """
            INSERT INTO webhook_events (message_id, subscription_id, type, user_id, payload, status, attempts, next_attempt_at,
                created_at, delivered_at, last_error)
            VALUES (\(event.id), \(event.subscriptionID), \(event.type.rawValue), \(event.userID), \(event.payload),
                \(event.status.rawValue), \(event.attempts), \(event.nextAttemptAt), \(event.createdAt),
                \(event.deliveredAt), \(event.lastError))
            """)
    }

    // MARK: subscriptions

    /// The row of `s`, every column: a new subscription's, and `db copy`'s (`PostgresRecordCopy`).
    static func insertion(_ s: WebhookSubscription) -> PostgresQuery {
        """
        INSERT INTO webhook_subscriptions (id, title, endpoint, events, clients, attributes, include_values,
            enabled, disabled_reason, signing, sealed_secret, sealed_previous_secret, previous_secret_expires_at,
            created_at, updated_at)
        VALUES (\(s.id), \(s.title), \(s.endpoint), \(s.events.map(\.rawValue).joined(separator: " ")),
            \(s.clients.joined(separator: " ")), \(s.attributes.joined(separator: " ")), \(s.includeValues),
            \(s.enabled), \(s.disabledReason), \(s.signing.rawValue), \(s.sealedSecret), \(s.sealedPreviousSecret),
            \(s.previousSecretExpiresAt), \(s.createdAt), \(s.updatedAt))
        """
    }

    func insert(_ s: WebhookSubscription) async throws {
        do {
            try await store.query(Self.insertion(s))
        } catch let error as PSQLError where error.isUniqueViolation {
            throw CaptureError.invalidArgument("title", "another subscription has this title")
        }
    }

    func update(_ s: WebhookSubscription) async throws {
        do {
            try await store.query(
                """
                UPDATE webhook_subscriptions SET title = \(s.title), endpoint = \(s.endpoint),
                    events = \(s.events.map(\.rawValue).joined(separator: " ")), clients = \(s.clients.joined(separator: " ")),
                    attributes = \(s.attributes.joined(separator: " ")), include_values = \(s.includeValues),
                    enabled = \(s.enabled), disabled_reason = \(s.disabledReason), signing = \(s.signing.rawValue),
                    sealed_secret = \(s.sealedSecret), sealed_previous_secret = \(s.sealedPreviousSecret),
                    previous_secret_expires_at = \(s.previousSecretExpiresAt), updated_at = \(s.updatedAt)
                WHERE id = \(s.id)
                """)
        } catch let error as PSQLError where error.isUniqueViolation {
            throw CaptureError.invalidArgument("title", "another subscription has this title")
        }
    }

    func subscription(id: String) async throws -> WebhookSubscription? {
        try await store.query("SELECT * FROM webhook_subscriptions WHERE id = \(id)").first.map(Self.subscription)
    }

    func subscriptions() async throws -> [WebhookSubscription] {
        try await store.query("SELECT * FROM webhook_subscriptions ORDER BY created_at, id").map(Self.subscription)
    }

    func remove(id: String) async throws -> Bool {
        try await !store.query("DELETE FROM webhook_subscriptions WHERE id = \(id) RETURNING id").isEmpty
    }

    // MARK: events

    func record(_ events: [WebhookEvent]) async throws {
        try await store.transaction { connection in
            for event in events { try await Self.insert(event, on: connection) }
        }
    }

    func claimDue(at now: Date, lease: Date, limit: Int) async throws -> [WebhookEvent] {
        // The oldest pending event of each subscription and user: a later one waits until it is delivered or fails.
        try await store.query(
            """
            UPDATE webhook_events SET next_attempt_at = \(lease) WHERE id IN (
                SELECT e.id FROM webhook_events e JOIN webhook_subscriptions s ON s.id = e.subscription_id
                WHERE e.status = \(Self.pending) AND e.next_attempt_at <= \(now) AND s.enabled AND NOT EXISTS (
                    SELECT 1 FROM webhook_events b WHERE b.subscription_id = e.subscription_id
                    AND b.user_id IS NOT DISTINCT FROM e.user_id AND b.status = \(Self.pending) AND b.id < e.id)
                ORDER BY e.id LIMIT \(limit) FOR UPDATE OF e SKIP LOCKED)
            RETURNING *
            """
        ).map(Self.event).sorted { ($0.sequence ?? 0) < ($1.sequence ?? 0) }
    }

    func finish(_ event: WebhookEvent, attempt: WebhookAttempt) async throws {
        guard let sequence = event.sequence else { return }
        try await store.transaction { connection in
            try await connection.rows(
                """
                UPDATE webhook_events SET status = \(event.status.rawValue), attempts = \(event.attempts),
                    next_attempt_at = \(event.nextAttemptAt), delivered_at = \(event.deliveredAt),
                    last_error = \(event.lastError)
                WHERE id = \(sequence)
                """)
            try await connection.rows(
                """
                INSERT INTO webhook_attempts (event_id, at, status, milliseconds, error)
                VALUES (\(attempt.eventSequence), \(attempt.at), \(attempt.status), \(attempt.milliseconds), \(attempt.error))
                """)
        }
    }

    func disable(subscriptionID: String, reason: String, at now: Date) async throws {
        try await store.transaction { connection in
            try await connection.rows(
                """
                UPDATE webhook_subscriptions SET enabled = false, disabled_reason = \(reason), updated_at = \(now)
                WHERE id = \(subscriptionID)
                """)
            try await connection.rows(
                """
                UPDATE webhook_events SET status = \(Self.failed), last_error = \(reason)
                WHERE subscription_id = \(subscriptionID) AND status = \(Self.pending)
                """)
        }
    }

    func events(_ query: WebhookEventQuery) async throws -> [WebhookEvent] {
        try await store.query(
            """
            SELECT * FROM webhook_events
            WHERE (\(query.subscriptionID)::text IS NULL OR subscription_id = \(query.subscriptionID))
                AND (\(query.status?.rawValue)::text IS NULL OR status = \(query.status?.rawValue))
                AND (\(query.since)::timestamptz IS NULL OR created_at >= \(query.since))
                AND (\(query.until)::timestamptz IS NULL OR created_at < \(query.until))
            ORDER BY id DESC LIMIT \(query.page.limit) OFFSET \(query.page.offset)
            """
        ).map(Self.event)
    }

    func events(id: String) async throws -> [WebhookEvent] {
        try await store.query("SELECT * FROM webhook_events WHERE message_id = \(id) ORDER BY id").map(Self.event)
    }

    func attempts(of sequence: Int64) async throws -> [WebhookAttempt] {
        try await store.query(
            "SELECT * FROM webhook_attempts WHERE event_id = \(sequence) ORDER BY id"
        ).map(Self.attempt)
    }

    static func attempt(_ row: PostgresRow) throws -> WebhookAttempt {
        let c = Columns(row)
        return WebhookAttempt(
            eventSequence: try c("event_id"), at: try c("at"), status: try c("status"),
            milliseconds: try c("milliseconds"), error: try c("error"))
    }

    func redeliver(id: String?, query: WebhookEventQuery) async throws -> Int {
        try await store.query(
            """
            WITH redelivered AS (
                UPDATE webhook_events SET status = \(Self.pending), attempts = 0,
                    next_attempt_at = \(Date(timeIntervalSince1970: 0))
                WHERE status = \(Self.failed) AND (\(id)::text IS NULL OR message_id = \(id))
                    AND (\(query.subscriptionID)::text IS NULL OR subscription_id = \(query.subscriptionID))
                    AND (\(query.since)::timestamptz IS NULL OR created_at >= \(query.since))
                    AND (\(query.until)::timestamptz IS NULL OR created_at < \(query.until))
                RETURNING 1)
            SELECT count(*) AS n FROM redelivered
            """
        ).first.map { try Columns($0)("n", as: Int.self) } ?? 0
    }

    func purge(before cutoff: Date) async throws -> Int {
        try await store.query(
            """
            WITH purged AS (
                DELETE FROM webhook_events WHERE status <> \(Self.pending) AND created_at < \(cutoff) RETURNING 1)
            SELECT count(*) AS n FROM purged
            """
        ).first.map { try Columns($0)("n", as: Int.self) } ?? 0
    }

    func backlog() async throws -> WebhookBacklog {
        guard
            let row = try await store.query(
                """
                SELECT count(*) FILTER (WHERE status = \(Self.pending)) AS pending,
                    count(*) FILTER (WHERE status = \(Self.failed)) AS failed,
                    min(created_at) FILTER (WHERE status = \(Self.pending)) AS oldest
                FROM webhook_events
                """
            ).first
        else { return WebhookBacklog(pending: 0, failed: 0, oldestPending: nil) }
        let c = Columns(row)
        return WebhookBacklog(pending: try c("pending"), failed: try c("failed"), oldestPending: try c("oldest"))
    }

    // MARK: rows

    static func subscription(_ row: PostgresRow) throws -> WebhookSubscription {
        let c = Columns(row)
        func names(_ column: String) throws -> [String] {
            try c(column, as: String.self).split(separator: " ").map(String.init)
        }
        var subscription = WebhookSubscription(
            id: try c("id"), title: try c("title"), endpoint: try c("endpoint"),
            events: try names("events").map { try WebhookEventType.parsed($0) }, clients: try names("clients"),
            attributes: try names("attributes"), includeValues: try c("include_values"), enabled: try c("enabled"),
            signing: WebhookSigning(rawValue: try c("signing")) ?? .v1, sealedSecret: try c("sealed_secret"),
            createdAt: try c("created_at"))
        subscription.disabledReason = try c("disabled_reason")
        subscription.sealedPreviousSecret = try c("sealed_previous_secret")
        subscription.previousSecretExpiresAt = try c("previous_secret_expires_at")
        subscription.updatedAt = try c("updated_at")
        return subscription
    }

    static func event(_ row: PostgresRow) throws -> WebhookEvent {
        let c = Columns(row)
        let (type, status): (String, String) = (try c("type"), try c("status"))
        guard let knownType = WebhookEventType(rawValue: type), let knownStatus = WebhookEvent.Status(rawValue: status)
        else { throw CaptureError.unexpected("a webhook event of unknown type \(type) or status \(status)") }
        var event = WebhookEvent(
            id: try c("message_id"), subscriptionID: try c("subscription_id"), type: knownType, userID: try c("user_id"),
            payload: try c("payload"), createdAt: try c("created_at"))
        event.sequence = try c("id")
        event.status = knownStatus
        event.attempts = try c("attempts")
        event.nextAttemptAt = try c("next_attempt_at")
        event.deliveredAt = try c("delivered_at")
        event.lastError = try c("last_error")
        return event
    }
}
