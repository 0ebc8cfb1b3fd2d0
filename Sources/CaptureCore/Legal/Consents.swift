import CaptureJSON
import Foundation

/// Janrain's `consents` object: one object per consent the schema names (`marketing`, …), each with `granted` (the
/// person's choice), `updated` and `clientId`. The person sets `granted`; only the service writes `updated` and
/// `clientId` (read-only in the schema), and only when `granted` changes: they say when, and through which client,
/// the person last decided. A choice left as it was keeps its stamp, whatever else the save carried.
public enum Consents {
    public static let attribute = "consents"

    /// A consent the person changed: its name and the new choice (nil when cleared).
    public struct Change: Sendable, Equatable {
        public var consent: String
        public var granted: Bool?
    }

    /// `user` as saved from `previous` (nil for a new record), with every consent's stamp set by the rule above;
    /// `changes` lists the consents whose `granted` moved.
    public static func stamped(
        _ user: User, previous: User?, clientID: String, at date: Date, schema: EntitySchema
    ) -> (user: User, changes: [Change]) {
        guard let definition = schema.attributes[attribute], definition.type == .object else { return (user, []) }
        let before = previous?.profile[attribute]?.objectMembers ?? [:]
        var after = user.profile[attribute]?.objectMembers ?? [:]
        var changes: [Change] = []
        for (name, consent) in definition.attributes.sorted(by: { $0.key < $1.key }) where consent.type == .object {
            let old = before[name]?.objectMembers ?? [:]
            var new = after[name]?.objectMembers ?? [:]
            let granted = new["granted"]
            let decided = granted != old["granted"]
            for stamp in ["updated", "clientId"] where consent.attributes[stamp] != nil {
                if decided {
                    new[stamp] = stamp == "updated" ? .string(CaptureDate.format(date)) : .string(clientID)
                } else {
                    new[stamp] = old[stamp]
                }
            }
            if decided {
                let choice: Bool? = if case .bool(let value) = granted { value } else { nil }
                changes.append(Change(consent: name, granted: choice))
            }
            after[name] = new.isEmpty ? nil : .object(new)
        }
        var user = user
        user.profile[attribute] = after.isEmpty ? nil : .object(after)
        return (user, changes)
    }
}
