import CaptureJSON
import Foundation

/// The admin views' date format, the secret's note, and the admin keys' document (capturectl only, on the database
/// file). The admin API's documents are the views in Admin/Views. Never a token, a secret or a hash.
public enum AdminDocuments {
    /// ISO-8601 UTC to the second, or null.
    public static func date(_ date: Date?) -> JSONValue {
        date.map { .string(iso($0)) } ?? .null
    }

    public static func iso(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(timeZone: TimeZone(identifier: "UTC")!))
    }

    public static let secretNote = "This secret is shown only once: only its hash is stored. Keep it somewhere safe."

    public static func adminKey(_ key: AdminKey, presented: String? = nil) -> JSONValue {
        var fields: [String: JSONValue] = [
            "id": .string(key.id), "name": .string(key.name), "state": .string(key.isRevoked ? "revoked" : "active"),
            "created_at": date(key.createdAt), "revoked_at": date(key.revokedAt),
        ]
        if let presented {
            fields["key"] = .string(presented)
            fields["note"] = "This key is shown only once: only its hash is stored. Keep it somewhere safe."
        }
        return .object(fields)
    }
}
