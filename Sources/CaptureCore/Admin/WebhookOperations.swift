import CaptureJSON
import Foundation

/// The webhooks' verbs in the operators' table (`AdminOperations.all` takes them): subscriptions under
/// `/webhooks`, the events' history and redelivery under `/webhooks/:webhook/events` and `/webhook-events`.
public enum WebhookOperations {
    public static let all: [any AdminRoute] = [
        webhooks, addWebhook, webhook, updateWebhook, removeWebhook, rotateWebhookSecret, testWebhook, webhookEvents,
        webhookEvent, redeliverWebhookEvents,
    ]

    public static let webhooks = AdminOperation<AdminNothing, AdminList<WebhookSubscriptionView>>(
        .get, "/webhooks", read: { _ in AdminNothing() }, write: { _ in AdminCall() }
    ) { features, _, _ in
        let now = features.time.now()
        return AdminList(
            items: try await features.webhooks.list().map {
                WebhookSubscriptionView($0, publicKey: features.webhooks.verificationKey(of: $0), now: now)
            }, nextOffset: nil)
    }

    /// With `secret` once.
    public static let addWebhook = AdminOperation<WebhookDraft, WebhookSubscriptionView>(
        .post, "/webhooks", fields: WebhookDraft.fields, status: 201, read: WebhookDraft.init(call:), write: \.call,
        audit: { ("webhook.add", $0.title) }
    ) { features, draft, _ in
        let (subscription, secret) = try await features.webhooks.add(draft)
        return WebhookSubscriptionView(
            subscription, secret: secret, publicKey: features.webhooks.verificationKey(of: subscription),
            now: features.time.now())
    }

    public static let webhook = AdminOperation<String, WebhookSubscriptionView>(
        .get, "/webhooks/:webhook", read: { try $0.reference("webhook") }, write: { AdminCall(references: ["webhook": $0]) }
    ) { features, id, _ in
        let subscription = try await features.webhooks.find(id)
        return WebhookSubscriptionView(
            subscription, publicKey: features.webhooks.verificationKey(of: subscription), now: features.time.now())
    }

    public static let updateWebhook = AdminOperation<WebhookUpdate, WebhookSubscriptionView>(
        .patch, "/webhooks/:webhook", fields: WebhookChange.fields,
        read: { WebhookUpdate(id: try $0.reference("webhook"), change: try WebhookChange(call: $0)) },
        write: { input in
            var call = input.change.call
            call.references["webhook"] = input.id
            return call
        },
        audit: { ("webhook.update", $0.id) }
    ) { features, input, _ in
        WebhookSubscriptionView(try await features.webhooks.update(input.id, input.change), now: features.time.now())
    }

    public static let removeWebhook = AdminOperation<String, WebhookSubscriptionView>(
        .delete, "/webhooks/:webhook", read: { try $0.reference("webhook") },
        write: { AdminCall(references: ["webhook": $0]) }, audit: { ("webhook.remove", $0) }
    ) { features, id, _ in WebhookSubscriptionView(try await features.webhooks.remove(id), now: features.time.now()) }

    /// A new secret, shown once; the old one signs beside it for `keep_old_hours` (the settings' overlap by default).
    public static let rotateWebhookSecret = AdminOperation<WebhookRotation, WebhookSubscriptionView>(
        .post, "/webhooks/:webhook/rotate-secret", fields: ["keep_old_hours"],
        read: { call in
            let hours: Double?
            switch call.body["keep_old_hours"] {
            case nil, .null: hours = nil
            case .int(let value): hours = Double(value)
            case .double(let value): hours = value
            default: throw CaptureError.invalidArgument("keep_old_hours", "must be a number of hours")
            }
            return WebhookRotation(id: try call.reference("webhook"), keepOldHours: hours)
        },
        write: { input in
            AdminCall(
                references: ["webhook": input.id],
                body: input.keepOldHours.map { ["keep_old_hours": .double($0)] } ?? [:])
        },
        audit: { ("webhook.rotate_secret", $0.id) }
    ) { features, input, _ in
        let (subscription, secret) = try await features.webhooks.rotateSecret(input.id, keepOldHours: input.keepOldHours)
        return WebhookSubscriptionView(
            subscription, secret: secret, publicKey: features.webhooks.verificationKey(of: subscription),
            now: features.time.now())
    }

    /// A `ping` event to this subscription alone.
    public static let testWebhook = AdminOperation<String, WebhookEventView>(
        .post, "/webhooks/:webhook/test", status: 202, read: { try $0.reference("webhook") },
        write: { AdminCall(references: ["webhook": $0]) }, audit: { ("webhook.test", $0) }
    ) { features, id, _ in WebhookEventView(try await features.webhooks.testSend(id)) }

    /// The subscription's events, newest first.
    public static let webhookEvents = AdminOperation<WebhookEventQuery, AdminList<WebhookEventView>>(
        .get, "/webhooks/:webhook/events", fields: ["status", "since", "until", "limit", "offset"],
        read: { call in
            var query = try WebhookEventQuery(call: call)
            query.subscriptionID = try call.reference("webhook")
            return query
        },
        write: { query in
            var call = query.call
            call.references["webhook"] = query.subscriptionID
            return call
        }
    ) { features, query, _ in
        let events = try await features.webhooks.events(query)
        return AdminList(items: events.map { WebhookEventView($0) }, nextOffset: query.page.next(after: events.count))
    }

    /// One event (`webhook-id`) for every subscription that heard it, with each attempt and the body sent.
    public static let webhookEvent = AdminOperation<String, AdminList<WebhookEventView>>(
        .get, "/webhook-events/:event", read: { try $0.reference("event") }, write: { AdminCall(references: ["event": $0]) }
    ) { features, id, _ in
        AdminList(items: try await features.webhooks.event(id).map { WebhookEventView($0.0, history: $0.1) }, nextOffset: nil)
    }

    /// Failed events due again: `event` (an id), or `since`/`until` (and `subscription`).
    public static let redeliverWebhookEvents = AdminOperation<WebhookRedelivery, WebhookRedeliveryView>(
        .post, "/webhook-events/redeliver", fields: ["event", "subscription", "since", "until"],
        read: { call in
            WebhookRedelivery(
                event: try call.string("event"),
                query: WebhookEventQuery(
                    subscriptionID: try call.string("subscription"), since: try date(call.string("since"), "since"),
                    until: try date(call.string("until"), "until")))
        },
        write: { input in
            var body: [String: JSONValue] = [:]
            if let event = input.event { body["event"] = .string(event) }
            if let id = input.query.subscriptionID { body["subscription"] = .string(id) }
            if let since = input.query.since { body["since"] = .string(AdminDocuments.iso(since)) }
            if let until = input.query.until { body["until"] = .string(AdminDocuments.iso(until)) }
            return AdminCall(body: body)
        },
        audit: { ("webhook.redeliver", $0.event ?? $0.query.subscriptionID ?? "events") },
        detail: { "redelivered \($0.redelivered)" }
    ) { features, input, _ in
        WebhookRedeliveryView(redelivered: try await features.webhooks.redeliver(id: input.event, query: input.query))
    }

    /// An ISO-8601 date, or `invalid_argument` naming `field`.
    public static func date(_ text: String?, _ field: String) throws -> Date? {
        guard let text, !text.isEmpty else { return nil }
        guard let date = try? Date.ISO8601FormatStyle().parse(text) else {
            throw CaptureError.invalidArgument(field, "must be an ISO-8601 date and time, as 2026-12-05T22:00:00Z")
        }
        return date
    }
}

/// A subscription's id and what to change of it.
public struct WebhookUpdate: Sendable, Equatable {
    public var id: String
    public var change: WebhookChange

    public init(id: String, change: WebhookChange) {
        self.id = id
        self.change = change
    }
}

public struct WebhookRotation: Sendable, Equatable {
    public var id: String
    public var keepOldHours: Double?

    public init(id: String, keepOldHours: Double?) {
        self.id = id
        self.keepOldHours = keepOldHours
    }
}

public struct WebhookRedelivery: Sendable, Equatable {
    public var event: String?
    public var query: WebhookEventQuery

    public init(event: String?, query: WebhookEventQuery) {
        self.event = event
        self.query = query
    }
}

extension WebhookEventQuery {
    init(call: AdminCall) throws {
        let status = try call.query["status"].map { text in
            guard let status = WebhookEvent.Status(rawValue: text) else {
                throw CaptureError.invalidArgument("status", "must be pending, delivered or failed")
            }
            return status
        }
        self.init(
            status: status, since: try WebhookOperations.date(call.query["since"], "since"),
            until: try WebhookOperations.date(call.query["until"], "until"), page: try call.page())
    }

    var call: AdminCall {
        AdminCall(
            query: AdminCall.query(
                [
                    "status": status?.rawValue, "since": since.map(AdminDocuments.iso),
                    "until": until.map(AdminDocuments.iso),
                ], page: page))
    }
}

extension WebhookDraft {
    static let fields: Set<String> = [
        "title", "endpoint", "events", "clients", "attributes", "include_values", "enabled", "signing",
    ]

    init(call: AdminCall) throws {
        guard let title = try call.string("title") else { throw CaptureError.missingArgument("title") }
        guard let endpoint = try call.string("endpoint") else { throw CaptureError.missingArgument("endpoint") }
        guard let events = try call.strings("events") else { throw CaptureError.missingArgument("events") }
        self.init(title: title, endpoint: endpoint, events: try events.map { try WebhookEventType.parsed($0) })
        clients = try call.strings("clients") ?? []
        attributes = try call.strings("attributes") ?? []
        includeValues = try call.bool("include_values") ?? false
        enabled = try call.bool("enabled") ?? true
        if let signing = try call.string("signing") {
            guard let chosen = WebhookSigning(rawValue: signing) else {
                throw CaptureError.invalidArgument("signing", "must be v1 (HMAC-SHA256) or v1a (Ed25519)")
            }
            self.signing = chosen
        }
    }

    var call: AdminCall {
        AdminCall(body: [
            "title": .string(title), "endpoint": .string(endpoint), "events": .array(events.map { .string($0.rawValue) }),
            "clients": .array(clients.map(JSONValue.string)), "attributes": .array(attributes.map(JSONValue.string)),
            "include_values": .bool(includeValues), "enabled": .bool(enabled), "signing": .string(signing.rawValue),
        ])
    }
}

extension WebhookChange {
    static let fields: Set<String> = ["title", "endpoint", "events", "clients", "attributes", "include_values", "enabled"]

    init(call: AdminCall) throws {
        self.init()
        title = try call.string("title")
        endpoint = try call.string("endpoint")
        events = try call.strings("events").map { try $0.map { try WebhookEventType.parsed($0) } }
        clients = try call.strings("clients")
        attributes = try call.strings("attributes")
        includeValues = try call.bool("include_values")
        enabled = try call.bool("enabled")
    }

    var call: AdminCall {
        var body: [String: JSONValue] = [:]
        if let title { body["title"] = .string(title) }
        if let endpoint { body["endpoint"] = .string(endpoint) }
        if let events { body["events"] = .array(events.map { .string($0.rawValue) }) }
        if let clients { body["clients"] = .array(clients.map(JSONValue.string)) }
        if let attributes { body["attributes"] = .array(attributes.map(JSONValue.string)) }
        if let includeValues { body["include_values"] = .bool(includeValues) }
        if let enabled { body["enabled"] = .bool(enabled) }
        return AdminCall(body: body)
    }
}
