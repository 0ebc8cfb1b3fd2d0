import CaptureCore
import Foundation
import GRDB

/// A row of `webhook_subscriptions`; lists are kept as space-separated names (none holds a space).
struct WebhookSubscriptionRow: StoredRow, PersistableRecord {
    static let databaseTableName = "webhook_subscriptions"
    var value: WebhookSubscription

    init(_ value: WebhookSubscription) { self.value = value }

    init(row: Row) throws {
        let signing: String = row["signing"]
        var subscription = WebhookSubscription(
            id: row["id"], title: row["title"], endpoint: row["endpoint"],
            events: try Self.names(row["events"]).map { try WebhookEventType.parsed($0) },
            clients: Self.names(row["clients"]), attributes: Self.names(row["attributes"]),
            includeValues: row["includeValues"], enabled: row["enabled"], signing: WebhookSigning(rawValue: signing) ?? .v1,
            sealedSecret: row["sealedSecret"], createdAt: row["createdAt"])
        subscription.disabledReason = row["disabledReason"]
        subscription.sealedPreviousSecret = row["sealedPreviousSecret"]
        subscription.previousSecretExpiresAt = row["previousSecretExpiresAt"]
        subscription.updatedAt = row["updatedAt"]
        value = subscription
    }

    func encode(to container: inout PersistenceContainer) throws {
        container["id"] = value.id
        container["title"] = value.title
        container["endpoint"] = value.endpoint
        container["events"] = value.events.map(\.rawValue).joined(separator: " ")
        container["clients"] = value.clients.joined(separator: " ")
        container["attributes"] = value.attributes.joined(separator: " ")
        container["includeValues"] = value.includeValues
        container["enabled"] = value.enabled
        container["disabledReason"] = value.disabledReason
        container["signing"] = value.signing.rawValue
        container["sealedSecret"] = value.sealedSecret
        container["sealedPreviousSecret"] = value.sealedPreviousSecret
        container["previousSecretExpiresAt"] = value.previousSecretExpiresAt
        container["createdAt"] = value.createdAt
        container["updatedAt"] = value.updatedAt
    }

    static func names(_ text: String) -> [String] { text.split(separator: " ").map(String.init) }
}

/// A row of `webhook_events`: `id` is the event's sequence, `messageID` its `webhook-id`. A type or status this build does not know is an error.
struct WebhookEventRow: GeneratedIDRow {
    static let databaseTableName = "webhook_events"
    var value: WebhookEvent

    init(_ value: WebhookEvent) { self.value = value }

    var id: Int64? {
        get { value.sequence }
        set { value.sequence = newValue }
    }

    init(row: Row) throws {
        let (type, status): (String, String) = (row["type"], row["status"])
        guard let knownType = WebhookEventType(rawValue: type), let knownStatus = WebhookEvent.Status(rawValue: status)
        else { throw CaptureError.unexpected("a webhook event of unknown type \(type) or status \(status)") }
        var event = WebhookEvent(
            id: row["messageID"], subscriptionID: row["subscriptionID"], type: knownType, userID: row["userID"],
            payload: row["payload"], createdAt: row["createdAt"])
        event.sequence = row["id"]
        event.status = knownStatus
        event.attempts = row["attempts"]
        event.nextAttemptAt = row["nextAttemptAt"]
        event.deliveredAt = row["deliveredAt"]
        event.lastError = row["lastError"]
        value = event
    }

    func encode(to container: inout PersistenceContainer) throws {
        container["id"] = value.sequence
        container["messageID"] = value.id
        container["subscriptionID"] = value.subscriptionID
        container["type"] = value.type.rawValue
        container["userID"] = value.userID
        container["payload"] = value.payload
        container["status"] = value.status.rawValue
        container["attempts"] = value.attempts
        container["nextAttemptAt"] = value.nextAttemptAt
        container["createdAt"] = value.createdAt
        container["deliveredAt"] = value.deliveredAt
        container["lastError"] = value.lastError
    }
}

/// A row of `webhook_attempts`: one delivery attempt of the event `eventID` names.
struct WebhookAttemptRow: StoredRow, PersistableRecord {
    static let databaseTableName = "webhook_attempts"
    let value: StoredWebhookAttempt

    init(_ value: StoredWebhookAttempt) { self.value = value }

    init(row: Row) throws {
        value = StoredWebhookAttempt(
            id: row["id"],
            attempt: WebhookAttempt(
                eventSequence: row["eventID"], at: row["at"], status: row["status"], milliseconds: row["milliseconds"],
                error: row["error"]))
    }

    func encode(to container: inout PersistenceContainer) throws {
        container["id"] = value.id
        container["eventID"] = value.attempt.eventSequence
        container["at"] = value.attempt.at
        container["status"] = value.attempt.status
        container["milliseconds"] = value.attempt.milliseconds
        container["error"] = value.attempt.error
    }
}
