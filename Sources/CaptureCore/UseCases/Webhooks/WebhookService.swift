import CaptureJSON
import Foundation

/// Webhooks for operators (docs/webhooks.md): subscriptions (Janrain's Webhooks v3 names where they map), the event
/// history with each attempt, redelivery of failed events and a test send. Secrets are shown once and kept sealed
/// under the code key, since deliveries are signed with them. Events of changes are raised by storage, in the
/// change's transaction (`RecordChange`); delivery is `WebhookDelivery`'s.
public struct WebhookService: Sendable {
    let webhooks: any WebhookRepository
    let time: any TimeSource
    let random: any RandomSource
    let codeKey: CodeKey
    let settings: WebhookSettings
    let signal: MailSignal
}

/// A new subscription as an operator asks for it.
public struct WebhookDraft: Sendable, Equatable {
    public var title: String
    public var endpoint: String
    public var events: [WebhookEventType]
    public var clients: [String] = []
    public var attributes: [String] = []
    public var includeValues = false
    public var enabled = true
    public var signing: WebhookSigning = .v1

    public init(title: String, endpoint: String, events: [WebhookEventType]) {
        self.title = title
        self.endpoint = endpoint
        self.events = events
    }
}

/// What to change of a subscription; nil leaves it.
public struct WebhookChange: Sendable, Equatable {
    public var title: String?
    public var endpoint: String?
    public var events: [WebhookEventType]?
    public var clients: [String]?
    public var attributes: [String]?
    public var includeValues: Bool?
    public var enabled: Bool?

    public init() {}
}

extension WebhookService {
    /// The subscription and its secret (shown once).
    public func add(_ draft: WebhookDraft) async throws -> (WebhookSubscription, secret: String) {
        try check(title: draft.title, endpoint: draft.endpoint, events: draft.events)
        let secret = WebhookSignature.newSecret(draft.signing, random: random)
        let subscription = WebhookSubscription(
            id: "whs_" + random.bytes(12).withUnsafeBytes { Hex.lowercase($0) }, title: draft.title, endpoint: draft.endpoint,
            events: Array(Set(draft.events)).sorted(), clients: draft.clients, attributes: draft.attributes,
            includeValues: draft.includeValues, enabled: draft.enabled, signing: draft.signing,
            sealedSecret: codeKey.seal(Array(secret.utf8)), createdAt: time.now())
        try await webhooks.insert(subscription)
        return (subscription, secret)
    }

    public func find(_ id: String) async throws -> WebhookSubscription {
        guard let subscription = try await webhooks.subscription(id: id) else {
            throw CaptureError.recordNotFound("webhook subscription '\(id)'")
        }
        return subscription
    }

    public func list() async throws -> [WebhookSubscription] { try await webhooks.subscriptions() }

    public func update(_ id: String, _ change: WebhookChange) async throws -> WebhookSubscription {
        var subscription = try await find(id)
        if let title = change.title { subscription.title = title }
        if let endpoint = change.endpoint { subscription.endpoint = endpoint }
        if let events = change.events { subscription.events = Array(Set(events)).sorted() }
        if let clients = change.clients { subscription.clients = clients }
        if let attributes = change.attributes { subscription.attributes = attributes }
        if let includeValues = change.includeValues { subscription.includeValues = includeValues }
        if let enabled = change.enabled {
            subscription.enabled = enabled
            subscription.disabledReason = nil
        }
        try check(title: subscription.title, endpoint: subscription.endpoint, events: subscription.events)
        subscription.updatedAt = time.now()
        try await webhooks.update(subscription)
        if subscription.enabled { signal.wake() }
        return subscription
    }

    @discardableResult
    public func remove(_ id: String) async throws -> WebhookSubscription {
        let subscription = try await find(id)
        try await webhooks.remove(id: id)
        return subscription
    }

    /// A new secret (shown once); the old one keeps signing beside it for `keepOldHours` (the settings' overlap by
    /// default; 0 stops it at once), so receivers can move to the new one while both verify.
    public func rotateSecret(_ id: String, keepOldHours: Double? = nil) async throws -> (WebhookSubscription, secret: String) {
        var subscription = try await find(id)
        let hours = keepOldHours ?? settings.rotationOverlapHours
        guard hours >= 0, hours <= 24 * 30 else {
            throw CaptureError.invalidArgument("keep_old_hours", "must be from 0 to 720")
        }
        let secret = WebhookSignature.newSecret(subscription.signing, random: random)
        let now = time.now()
        subscription.sealedPreviousSecret = hours > 0 ? subscription.sealedSecret : nil
        subscription.previousSecretExpiresAt = hours > 0 ? now + hours * 3600 : nil
        subscription.sealedSecret = codeKey.seal(Array(secret.utf8))
        subscription.updatedAt = now
        try await webhooks.update(subscription)
        return (subscription, secret)
    }

    /// What receivers verify with: the secret for `v1`, the public key for `v1a` (`whpk_`); nil for a `v1`
    /// subscription (its secret is shown only once).
    public func verificationKey(of subscription: WebhookSubscription) -> String? {
        guard subscription.signing == .v1a, let secret = codeKey.unseal(subscription.sealedSecret) else { return nil }
        return WebhookSignature.verificationKey(of: String(decoding: secret, as: UTF8.self))
    }

    /// Records a `ping` event for the subscription alone and wakes the delivery.
    public func testSend(_ id: String) async throws -> WebhookEvent {
        let subscription = try await find(id)
        let now = time.now()
        let eventID = WebhookEvents.newID()
        let body: JSONValue = [
            "type": "ping", "timestamp": .string(AdminDocuments.iso(now)),
            "data": ["subscription": .string(subscription.id)],
        ]
        let payload = String(decoding: body.encodedBytes(), as: UTF8.self)
        let event = WebhookEvent(
            id: eventID, subscriptionID: subscription.id, type: .ping, userID: nil, payload: payload, createdAt: now)
        try await webhooks.record([event])
        signal.wake()
        return try await webhooks.events(id: eventID).first ?? event
    }

    public func events(_ query: WebhookEventQuery) async throws -> [WebhookEvent] {
        if let id = query.subscriptionID { _ = try await find(id) }
        return try await webhooks.events(query)
    }

    /// The event's deliveries (one per subscription that heard it), each with its attempts.
    public func event(_ id: String) async throws -> [(WebhookEvent, [WebhookAttempt])] {
        let events = try await webhooks.events(id: id)
        guard !events.isEmpty else { throw CaptureError.recordNotFound("webhook event '\(id)'") }
        var found: [(WebhookEvent, [WebhookAttempt])] = []
        for event in events { found.append((event, try await webhooks.attempts(of: event.sequence ?? 0))) }
        return found
    }

    /// Failed events become due again: one by id, or those of a time range (and subscription). Returns how many.
    public func redeliver(id: String?, query: WebhookEventQuery) async throws -> Int {
        guard id != nil || query.since != nil || query.until != nil || query.subscriptionID != nil else {
            throw CaptureError.missingArgument("event")
        }
        if let id = query.subscriptionID { _ = try await find(id) }
        let count = try await webhooks.redeliver(id: id, query: query)
        if count > 0 { signal.wake() }
        return count
    }

    /// Deletes delivered and failed events older than the retention; returns how many.
    public func purge() async throws -> Int {
        try await webhooks.purge(before: time.now() - settings.retentionDays * 86400)
    }

    private func check(title: String, endpoint: String, events: [WebhookEventType]) throws {
        guard (2...200).contains(title.count) else {
            throw CaptureError.invalidArgument("title", "must be from 2 to 200 characters")
        }
        if let problem = settings.problem(withEndpoint: endpoint) { throw CaptureError.invalidArgument("endpoint", problem) }
        guard !events.isEmpty else { throw CaptureError.invalidArgument("events", "must name at least one event") }
    }
}
