import CaptureJSON
import Foundation

/// Janrain's `accountDeleteRequestTime` and `accountDataRequestTime`: when the person last asked for their account's
/// deletion (cleared when they take it back) or for their data. Written into the record only when the schema has the
/// attribute as a date-time (a Janrain customer's schema often does; the demo's does not); what the service acts on
/// is its own `deleteRequestedAt`.
public enum RequestTimes {
    public static let deletion = "accountDeleteRequestTime"
    public static let data = "accountDataRequestTime"

    /// `user` with `attribute` set to `date`, or cleared for nil, when the schema has it.
    public static func stamped(_ user: User, _ attribute: String, _ date: Date?, schema: EntitySchema) -> User {
        guard schema.attributes[attribute]?.type == .dateTime else { return user }
        var user = user
        user.profile[attribute] = date.map { .string(CaptureDate.format($0)) }
        return user
    }
}
