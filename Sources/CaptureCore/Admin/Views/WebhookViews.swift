import Foundation

/// A webhook subscription for operators (Janrain's Webhooks v3 names); its secret only once, when one is made.
public struct WebhookSubscriptionView: Codable, Sendable, Equatable {
    public var id: String
    public var title: String
    public var endpoint: String
    public var events: [String]
    public var clients: [String]
    public var attributes: [String]
    public var includeValues: Bool
    public var enabled: Bool
    public var disabledReason: String?
    public var signing: String
    /// Until when the secret before the last rotation still signs beside the new one.
    public var previousSecretExpiresAt: Date?
    public var createdAt: Date
    public var updatedAt: Date
    /// Left out unless a secret was just made.
    public var secret: String?
    /// The public key a `v1a` receiver verifies with (`whpk_…`).
    public var publicKey: String?
    public var note: String?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, title, endpoint, events, clients, attributes, enabled, signing, secret, note
        case includeValues = "include_values", disabledReason = "disabled_reason"
        case previousSecretExpiresAt = "previous_secret_expires_at", createdAt = "created_at", updatedAt = "updated_at"
        case publicKey = "public_key"
    }

    public init(_ subscription: WebhookSubscription, secret: String? = nil, publicKey: String? = nil, now: Date) {
        id = subscription.id
        title = subscription.title
        endpoint = subscription.endpoint
        events = subscription.events.map(\.rawValue)
        clients = subscription.clients
        attributes = subscription.attributes
        includeValues = subscription.includeValues
        enabled = subscription.enabled
        disabledReason = subscription.disabledReason
        signing = subscription.signing.rawValue
        previousSecretExpiresAt = subscription.previousSecretExpiresAt.flatMap { $0 > now ? $0 : nil }
        createdAt = subscription.createdAt
        updatedAt = subscription.updatedAt
        self.secret = secret
        self.publicKey = publicKey
        note = secret.map { _ in "This secret is shown only once; it is kept sealed to sign deliveries. Keep it somewhere safe." }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(title, forKey: .title)
        try c.encode(endpoint, forKey: .endpoint)
        try c.encode(events, forKey: .events)
        try c.encode(clients, forKey: .clients)
        try c.encode(attributes, forKey: .attributes)
        try c.encode(includeValues, forKey: .includeValues)
        try c.encode(enabled, forKey: .enabled)
        try c.encode(disabledReason, forKey: .disabledReason)
        try c.encode(signing, forKey: .signing)
        try c.encode(previousSecretExpiresAt, forKey: .previousSecretExpiresAt)
        try c.encode(createdAt, forKey: .createdAt)
        try c.encode(updatedAt, forKey: .updatedAt)
        try c.encode(publicKey, forKey: .publicKey)
        if let secret {
            try c.encode(secret, forKey: .secret)
            try c.encode(note, forKey: .note)
        }
    }
}

/// An event for one subscription, with its attempts when one event is shown.
public struct WebhookEventView: Codable, Sendable, Equatable {
    public var id: String
    public var sequence: Int64
    public var subscription: String
    public var type: String
    public var user: String?
    public var status: String
    public var attempts: Int
    public var nextAttemptAt: Date?
    public var createdAt: Date
    public var deliveredAt: Date?
    public var lastError: String?
    /// The body as sent (ids and attribute names; values only for subscriptions that ask).
    public var payload: String?
    public var history: [WebhookAttemptView]?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, sequence, subscription, type, user, status, attempts, payload, history
        case nextAttemptAt = "next_attempt_at", createdAt = "created_at", deliveredAt = "delivered_at"
        case lastError = "last_error"
    }

    public init(_ event: WebhookEvent, history: [WebhookAttempt]? = nil) {
        id = event.id
        sequence = event.sequence ?? 0
        subscription = event.subscriptionID
        type = event.type.rawValue
        user = event.userID
        status = event.status.rawValue
        attempts = event.attempts
        nextAttemptAt = event.status == .pending && event.nextAttemptAt.timeIntervalSince1970 > 0 ? event.nextAttemptAt : nil
        createdAt = event.createdAt
        deliveredAt = event.deliveredAt
        lastError = event.lastError
        payload = history == nil ? nil : event.payload
        self.history = history.map { $0.map(WebhookAttemptView.init) }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(sequence, forKey: .sequence)
        try c.encode(subscription, forKey: .subscription)
        try c.encode(type, forKey: .type)
        try c.encode(user, forKey: .user)
        try c.encode(status, forKey: .status)
        try c.encode(attempts, forKey: .attempts)
        try c.encode(nextAttemptAt, forKey: .nextAttemptAt)
        try c.encode(createdAt, forKey: .createdAt)
        try c.encode(deliveredAt, forKey: .deliveredAt)
        try c.encode(lastError, forKey: .lastError)
        if let history {
            try c.encode(payload, forKey: .payload)
            try c.encode(history, forKey: .history)
        }
    }
}

/// One delivery attempt: when, the listener's status (null: no response), how long, and why it failed.
public struct WebhookAttemptView: Codable, Sendable, Equatable {
    public var at: Date
    public var status: Int?
    public var milliseconds: Int
    public var error: String?

    enum CodingKeys: String, CodingKey, CaseIterable { case at, status, milliseconds, error }

    public init(_ attempt: WebhookAttempt) {
        at = attempt.at
        status = attempt.status
        milliseconds = attempt.milliseconds
        error = attempt.error
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(at, forKey: .at)
        try c.encode(status, forKey: .status)
        try c.encode(milliseconds, forKey: .milliseconds)
        try c.encode(error, forKey: .error)
    }
}

/// `{"redelivered": n}`: how many failed events are due again.
public struct WebhookRedeliveryView: Codable, Sendable, Equatable {
    public var redelivered: Int

    enum CodingKeys: String, CodingKey, CaseIterable { case redelivered }

    public init(redelivered: Int) { self.redelivered = redelivered }
}
