import Foundation
import Synchronization

/// A change storage is about to write, as the webhooks see it: storage hands it to `WebhookEvents.raised` inside the
/// write's transaction and inserts the events it returns there too, so a change and its events exist together or
/// not at all, whichever path wrote it (pages, SDK calls, the server API, capturectl, imports, migration).
public enum RecordChange: Sendable {
    case created(User)
    case updated(previous: User, current: User)
    /// Deleted (`erased`: by the erasure of a deactivated account or an operator).
    case deleted(User, erased: Bool)
    /// An audit row about a user (`AuditEntry.action`), when it is one the webhooks tell (`WebhookEvents.securityType`).
    case audited(action: String, userID: String, outcome: String, detail: String?)
}

/// Who made the changes of the current request (its client), for the events' `client_id` and the subscriptions'
/// client filter. The request's pipeline opens one (`ChangeOrigin.$current`), its parameters' reading notes the
/// client once known, and storage reads it before its transaction; nil outside a request (capturectl, imports).
public final class ChangeOrigin: Sendable {
    @TaskLocal public static var current: ChangeOrigin?
    private let noted = Mutex<String?>(nil)

    public init() {}

    /// The client of the current request, if one was noted.
    public static var client: String? { current?.noted.withLock { $0 } }

    /// Notes the request's client (the first one noted stays).
    public static func note(client: String?) {
        guard let client, !client.isEmpty, let current else { return }
        current.noted.withLock { if $0 == nil { $0 = client } }
    }
}
