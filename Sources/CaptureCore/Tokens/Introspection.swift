import CaptureJSON
import Foundation

/// What RFC 7662 says about an active token; `capturectl token introspect` and `POST /oauth/introspect`
/// both answer with these fields. An inactive token is exactly `{"active": false}`.
public struct Introspection: Sendable, Equatable {
    public var record: TokenRecord
    public var account: AccountSummary

    public static let inactive: JSONValue = ["active": false]

    /// RFC 7662 §2.2 `token_type`: `Bearer` for access tokens (RFC 6749 §7.1), else the kind of token.
    public var tokenType: String {
        switch record.kind {
        case .access: "Bearer"
        case .refresh: "refresh_token"
        case .code: "authorization_code"
        case .device: "device"
        case .signOut: "sign_out"
        }
    }

    public var fields: [String: JSONValue] {
        var fields: [String: JSONValue] = [
            "active": true, "sub": .string(account.id), "client_id": .string(record.clientID),
            "exp": .int(Int64(record.expiresAt.timeIntervalSince1970)),
            "iat": .int(Int64(record.issuedAt.timeIntervalSince1970)),
            "token_type": .string(tokenType), "username": .string(account.email),
            "email_verified": .bool(account.emailVerified),
        ]
        if !record.scope.isEmpty { fields["scope"] = .string(record.scope) }
        return fields
    }

    /// `fields` as JSON, written directly (`POST /oauth/introspect` answers with it on every active token).
    public var encodedBytes: [UInt8] {
        var object = JSONObjectWriter()
        object.member("active", true)
        object.member("client_id", record.clientID)
        object.member("email_verified", account.emailVerified)
        object.member("exp", Int64(record.expiresAt.timeIntervalSince1970))
        object.member("iat", Int64(record.issuedAt.timeIntervalSince1970))
        if !record.scope.isEmpty { object.member("scope", record.scope) }
        object.member("sub", account.id)
        object.member("token_type", tokenType)
        object.member("username", account.email)
        return object.finished()
    }
}
