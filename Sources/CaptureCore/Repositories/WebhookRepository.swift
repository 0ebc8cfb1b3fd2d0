import Foundation

/// Storage of webhook subscriptions and their events (the webhooks' outbox). Events of record changes are not
/// written through here: storage writes them inside the change's own transaction (`RecordChange`).
public protocol WebhookRepository: Sendable {
    /// Throws `invalid_argument` on `title` when another subscription has that title.
    func insert(_ subscription: WebhookSubscription) async throws
    func update(_ subscription: WebhookSubscription) async throws
    func subscription(id: String) async throws -> WebhookSubscription?
    /// Oldest first.
    func subscriptions() async throws -> [WebhookSubscription]
    /// Removes the subscription and its events.
    @discardableResult func remove(id: String) async throws -> Bool
    /// Stores events outside a change (a test send).
    func record(_ events: [WebhookEvent]) async throws
    /// Pending events due at `now`, at most `limit`, each the oldest pending one of its subscription and user (so a
    /// user's events go out in order), of enabled subscriptions; in the same transaction each one's next attempt
    /// moves to `lease`, so no other process takes it until then (rows being claimed are skipped, not waited for).
    func claimDue(at now: Date, lease: Date, limit: Int) async throws -> [WebhookEvent]
    /// Stores an attempt's outcome: the event as it now stands and the attempt in its history, in one transaction.
    func finish(_ event: WebhookEvent, attempt: WebhookAttempt) async throws
    /// Disables the subscription with `reason` (its listener answered 410); its pending events fail.
    func disable(subscriptionID: String, reason: String, at now: Date) async throws
    /// Newest first.
    func events(_ query: WebhookEventQuery) async throws -> [WebhookEvent]
    /// The events with that `webhook-id` (one per subscription that heard it).
    func events(id: String) async throws -> [WebhookEvent]
    /// An event's attempts, oldest first.
    func attempts(of sequence: Int64) async throws -> [WebhookAttempt]
    /// Failed events that `query` selects (or those with `id`) become pending and due at once, with their attempts
    /// counted from 0 again; returns how many.
    func redeliver(id: String?, query: WebhookEventQuery) async throws -> Int
    /// Deletes delivered and failed events (and their attempts) created before `cutoff`; returns how many.
    func purge(before cutoff: Date) async throws -> Int
    /// Pending and failed events, and when the oldest pending one was created.
    func backlog() async throws -> WebhookBacklog
}

/// What waits in the webhooks' outbox, for the gauges.
public struct WebhookBacklog: Sendable, Equatable {
    public var pending: Int
    public var failed: Int
    public var oldestPending: Date?

    public init(pending: Int, failed: Int, oldestPending: Date?) {
        self.pending = pending
        self.failed = failed
        self.oldestPending = oldestPending
    }
}
