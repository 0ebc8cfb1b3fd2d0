import CaptureJSON
import Foundation

/// The one rule that turns a change into webhook events: which subscriptions hear of it, and what they are told.
/// Payloads carry the user's `uuid`, Janrain's numeric `id`, the client and the names of changed attributes; never a
/// password, hash, code or token.
public enum WebhookEvents {
    /// The events of `change` for each of `subscriptions` that wants them (enabled, the event chosen, its filters met).
    public static func raised(
        by change: RecordChange, for subscriptions: [WebhookSubscription], client: String?, at now: Date,
        newID: () -> String = WebhookEvents.newID
    ) -> [WebhookEvent] {
        let live = subscriptions.filter(\.enabled)
        guard !live.isEmpty else { return [] }
        var events: [WebhookEvent] = []
        for notice in notices(of: change) {
            for subscription in live where wants(subscription, notice, client: client) {
                var data = notice.data
                if let client { data["client_id"] = .string(client) }
                if notice.type == .entityUpdated, subscription.includeValues, !notice.values.isEmpty {
                    data["values"] = .object(notice.values)
                }
                let body: JSONValue = [
                    "type": .string(notice.type.rawValue), "timestamp": .string(timestamp(now)), "data": .object(data),
                ]
                events.append(
                    WebhookEvent(
                        id: newID(), subscriptionID: subscription.id, type: notice.type, userID: notice.userID,
                        payload: String(decoding: body.encodedBytes(), as: UTF8.self), createdAt: now))
            }
        }
        return events
    }

    /// A Standard Webhooks message id: `msg_` and 128 random bits.
    public static func newID() -> String {
        "msg_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    }

    /// What a subscription is told of one change, before its filters.
    struct Notice {
        var type: WebhookEventType
        var userID: String
        var data: [String: JSONValue]
        var changed: [String] = []
        var values: [String: JSONValue] = [:]
    }

    static func wants(_ subscription: WebhookSubscription, _ notice: Notice, client: String?) -> Bool {
        guard subscription.events.contains(notice.type) else { return false }
        if !subscription.clients.isEmpty {
            guard let client, subscription.clients.contains(client) else { return false }
        }
        if notice.type == .entityUpdated, !subscription.attributes.isEmpty {
            return notice.changed.contains { subscription.attributes.contains($0) }
        }
        return true
    }

    static func notices(of change: RecordChange) -> [Notice] {
        switch change {
        case .created(let user):
            return [Notice(type: .entityCreated, userID: user.id, data: entity(user))]
        case .deleted(let user, let erased):
            var notices = [Notice(type: .entityDeleted, userID: user.id, data: entity(user))]
            if erased { notices.append(Notice(type: .accountErased, userID: user.id, data: entity(user))) }
            return notices
        case .updated(let previous, let current):
            let changed = changedAttributes(from: previous, to: current)
            var notices: [Notice] = []
            if !changed.isEmpty {
                var data = entity(current)
                data["attributes"] = .array(changed.map(JSONValue.string))
                notices.append(
                    Notice(
                        type: .entityUpdated, userID: current.id, data: data, changed: changed,
                        values: values(of: changed, in: current)))
            }
            if previous.passwordHash != current.passwordHash, current.passwordHash != nil,
                !isRehash(from: previous.passwordHash, to: current.passwordHash)
            {
                notices.append(Notice(type: .passwordChanged, userID: current.id, data: entity(current)))
            }
            if previous.email != current.email {
                notices.append(Notice(type: .emailChanged, userID: current.id, data: entity(current)))
            }
            let wasActive = previous.disabledAt == nil && previous.deleteRequestedAt == nil
            let isActive = current.disabledAt == nil && current.deleteRequestedAt == nil
            if wasActive != isActive {
                let type: WebhookEventType = isActive ? .accountReactivated : .accountDeactivated
                notices.append(Notice(type: type, userID: current.id, data: entity(current)))
            }
            return notices
        case .audited(let action, let userID, let outcome, _):
            // Refusals are told only for the sign-ins they are about; any other event only once it happened.
            guard let type = securityType(action),
                outcome == AuditEntry.success || type == .signInThrottled || type == .signInFailed
            else {
                return []
            }
            return [Notice(type: type, userID: userID, data: ["uuid": .string(userID), "entityType": "user"])]
        }
    }

    /// The security event an audit row is, when the webhooks tell it (the record's own changes — password, address,
    /// deactivation — are told from the record, not from here).
    public static func securityType(_ action: String) -> WebhookEventType? {
        switch action {
        case "signin.burst": .signInThrottled
        case "signin.failed": .signInFailed
        case "passkey.added": .passkeyAdded
        case "passkey.removed": .passkeyRemoved
        case "second_factor.enabled": .secondFactorAdded
        case "second_factor.disabled", "user.reset_factors": .secondFactorRemoved
        case "user.sign_out": .tokensRevoked
        case "user.consent_changed": .consentChanged
        case "user.terms_accepted": .termsAccepted
        default: nil
        }
    }

    /// The record's names that changed: its schema attributes (top level, as Janrain names them), `email`,
    /// `emailVerified` and `password` (the name only). A sign-in's `lastLogin` alone is not a change of the profile.
    public static func changedAttributes(from previous: User, to current: User) -> [String] {
        var names = Set<String>()
        for key in Set(previous.profile.keys).union(current.profile.keys) where previous.profile[key] != current.profile[key] {
            names.insert(key)
        }
        if previous.email != current.email { names.insert("email") }
        if previous.emailVerifiedAt != current.emailVerifiedAt { names.insert("emailVerified") }
        if previous.passwordHash != current.passwordHash, !isRehash(from: previous.passwordHash, to: current.passwordHash) {
            names.insert("password")
        }
        return names.sorted()
    }

    /// Whether a new hash looks like the sign-in's rehash of the same password rather than a new password: the old
    /// one was an imported format (`$legacy$…`) or bcrypt at another cost. (A new password set while the old hash was
    /// such a one is told as a rehash too: the one case this reading misses.)
    static func isRehash(from old: String?, to new: String?) -> Bool {
        guard let old, let new, new.hasPrefix("$2") else { return false }
        if old.hasPrefix("$legacy$") { return true }
        guard old.hasPrefix("$2") else { return false }
        // "$2b$10$…": the version and the cost.
        return Array(old.split(separator: "$").prefix(2)) != Array(new.split(separator: "$").prefix(2))
    }

    /// The new values of changed attributes, for subscriptions that ask: never the password.
    static func values(of changed: [String], in user: User) -> [String: JSONValue] {
        var values: [String: JSONValue] = [:]
        for name in changed {
            switch name {
            case "password": continue
            case "email": values[name] = .string(user.email)
            case "emailVerified": values[name] = user.emailVerifiedAt.map { .string(timestamp($0)) } ?? .null
            default: values[name] = user.profile[name] ?? .null
            }
        }
        return values
    }

    static func entity(_ user: User) -> [String: JSONValue] {
        var data: [String: JSONValue] = ["uuid": .string(user.id), "entityType": "user"]
        if let number = user.number { data["id"] = .int(number) }
        return data
    }

    static func timestamp(_ date: Date) -> String {
        AdminDocuments.iso(date)
    }
}
