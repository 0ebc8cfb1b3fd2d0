import CaptureJSON
import Foundation

/// The JSON the admin API sends and `capturectl --json` prints, in both of its modes: one encoder per kind of
/// record. Never a token, a secret or a hash: tokens are shown by fingerprint.
public enum AdminDocuments {
    /// ISO-8601 UTC to the second, or null.
    public static func date(_ date: Date?) -> JSONValue {
        date.map { .string(iso($0)) } ?? .null
    }

    public static func iso(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(timeZone: TimeZone(identifier: "UTC")!))
    }

    public static func token(_ record: TokenRecord, email: String?, now: Date) -> JSONValue {
        [
            "id": record.id.map { .int($0) } ?? .null,
            "fingerprint": .string(record.fingerprint),
            "kind": .string(record.kind.rawValue),
            "state": .string(record.state(at: now).rawValue),
            "user_id": .string(record.userID),
            "email": .optional(email),
            "client_id": .string(record.clientID),
            "chain_id": .string(record.chainID),
            "scope": .string(record.scope),
            "auth_provider": .string(record.authProvider),
            "issued_at": date(record.issuedAt),
            "expires_at": date(record.expiresAt),
            "used_at": date(record.usedAt),
            "revoked_at": date(record.revokedAt),
        ]
    }

    /// A user's fields for operators; the password hash is never included, only whether there is one.
    public static func user(_ user: User, linked: [LinkedIdentity]? = nil) -> JSONValue {
        var fields: [String: JSONValue] = [
            "id": .string(user.id),
            "email": .string(user.email),
            "state": .string(user.isDisabled ? "disabled" : "active"),
            "display_name": .optional(user.displayName),
            "given_name": .optional(user.givenName),
            "family_name": .optional(user.familyName),
            "birthday": .optional(user.birthday),
            "phone": .optional(user.phone),
            "has_password": .bool(user.passwordHash != nil),
            "email_verified_at": date(user.emailVerifiedAt),
            "created_at": date(user.createdAt),
            "updated_at": date(user.updatedAt),
            "last_login_at": date(user.lastLoginAt),
            "disabled_at": date(user.disabledAt),
        ]
        if let linked {
            fields["linked_accounts"] = .array(
                linked.map { link in
                    [
                        "provider": .string(link.provider), "identifier": .string(link.identifier),
                        "email": .optional(link.email),
                        "linked_at": date(link.linkedAt), "last_used_at": date(link.lastUsedAt),
                    ]
                })
        }
        return .object(fields)
    }

    /// A client; the secret's hash is left out. `secret` is added once, when one is made.
    public static func client(_ client: Client, secret: String? = nil) -> JSONValue {
        var fields: [String: JSONValue] = [
            "client_id": .string(client.clientID),
            "name": .string(client.name),
            "type": .string(client.isConfidential ? "confidential" : "public"),
            "confidential": .bool(client.isConfidential),
            "redirect_uris": .array(client.redirectURIs.map(JSONValue.string)),
            "allowed_origins": .array(client.allowedOrigins.map(JSONValue.string)),
            "response_types": .array(client.responseTypes.map(JSONValue.string)),
            "legacy_token_url": .bool(client.legacyTokenURL),
            "access_token_life_hours": client.accessTokenLifeHours.map(JSONValue.double) ?? .null,
            "created_at": date(client.createdAt),
        ]
        if let secret {
            fields["client_secret"] = .string(secret)
            fields["note"] = .string(secretNote)
        }
        return .object(fields)
    }

    public static let secretNote = "This secret is shown only once: only its hash is stored. Keep it somewhere safe."

    public static func audit(_ entry: AuditEntry) -> JSONValue {
        [
            "id": entry.id.map { .int($0) } ?? .null, "at": date(entry.at), "actor": .string(entry.actor),
            "action": .string(entry.action), "target": .string(entry.target), "outcome": .string(entry.outcome),
            "detail": .optional(entry.detail),
        ]
    }

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

    /// A count of what an action changed, e.g. `{"revoked": 3}`.
    public static func count(_ name: String, _ value: Int) -> JSONValue {
        .object([name: .int(Int64(value))])
    }
}

/// One page of a list: its items, and the offset of the next page when there may be one.
public struct AdminList: Sendable, Equatable {
    public var items: [JSONValue]
    public var nextOffset: Int?

    public init(items: [JSONValue], nextOffset: Int?) {
        self.items = items
        self.nextOffset = nextOffset
    }

    public var document: JSONValue {
        ["items": .array(items), "next_offset": nextOffset.map { .int(Int64($0)) } ?? .null]
    }

    /// The list from an admin API reply; nil when the reply is not one.
    public init?(document: JSONValue) {
        guard case .object(let fields) = document, case .array(let items) = fields["items"] else { return nil }
        self.items = items
        if case .int(let next) = fields["next_offset"] { nextOffset = Int(next) } else { nextOffset = nil }
    }
}
