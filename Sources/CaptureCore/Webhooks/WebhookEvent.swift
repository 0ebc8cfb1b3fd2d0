import Foundation

/// One event for one subscription: the webhooks' outbox row, written in the transaction of the change it reports,
/// then delivered by `WebhookDelivery` (in order per subscription and user, at least once).
public struct WebhookEvent: Sendable, Equatable {
    public enum Status: String, Sendable, Codable, CaseIterable {
        /// Waiting for its first or next attempt (or being attempted: its next attempt is then the claim's lease).
        case pending
        case delivered
        /// Given up after the last attempt, or its subscription was disabled by a 410; kept for redelivery.
        case failed
    }

    /// Storage's sequence: the order events are delivered in.
    public var sequence: Int64?
    /// `webhook-id`: the same on every attempt, so receivers can tell a repeat.
    public var id: String
    public var subscriptionID: String
    public var type: WebhookEventType
    /// The user's `uuid` (nil only for a test send); not linked to the record, so an erasure's event outlives it.
    public var userID: String?
    /// The JSON body sent, exactly as signed.
    public var payload: String
    public var status: Status
    public var attempts: Int
    public var nextAttemptAt: Date
    public var createdAt: Date
    public var deliveredAt: Date?
    public var lastError: String?

    public init(
        id: String, subscriptionID: String, type: WebhookEventType, userID: String?, payload: String, createdAt: Date
    ) {
        self.id = id
        self.subscriptionID = subscriptionID
        self.type = type
        self.userID = userID
        self.payload = payload
        self.status = .pending
        self.attempts = 0
        // Due at once in any process's clock: the writer's clock may not be the worker's.
        self.nextAttemptAt = Date(timeIntervalSince1970: 0)
        self.createdAt = createdAt
    }
}

/// One delivery attempt, for the event history (`capturectl webhook events`).
public struct WebhookAttempt: Sendable, Equatable {
    public var eventSequence: Int64
    public var at: Date
    /// The listener's HTTP status; nil when there was no response.
    public var status: Int?
    public var milliseconds: Int
    /// Why it failed (no response, or the status); nil on success.
    public var error: String?

    public init(eventSequence: Int64, at: Date, status: Int?, milliseconds: Int, error: String?) {
        self.eventSequence = eventSequence
        self.at = at
        self.status = status
        self.milliseconds = milliseconds
        self.error = error
    }
}

/// Which events an operator asks to see or redeliver.
public struct WebhookEventQuery: Sendable, Equatable {
    public var subscriptionID: String?
    public var status: WebhookEvent.Status?
    public var since: Date?
    public var until: Date?
    public var page: Page

    public init(
        subscriptionID: String? = nil, status: WebhookEvent.Status? = nil, since: Date? = nil, until: Date? = nil,
        page: Page = Page()
    ) {
        self.subscriptionID = subscriptionID
        self.status = status
        self.since = since
        self.until = until
        self.page = page
    }
}
