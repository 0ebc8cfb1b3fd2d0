/// RFC 7662's fields of a presented token, and its fingerprint; only `active: false` when it is not active.
/// Absent members are left out (not null), as RFC 7662 has it.
public struct IntrospectionView: Codable, Sendable, Equatable {
    public var active: Bool
    public var sub: String?
    public var username: String?
    public var clientID: String?
    public var tokenType: String?
    public var iat: Int64?
    public var exp: Int64?
    public var scope: String?
    public var emailVerified: Bool?
    public var fingerprint: String?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case active, sub, username, iat, exp, scope, fingerprint
        case clientID = "client_id", tokenType = "token_type", emailVerified = "email_verified"
    }

    public static let inactive = IntrospectionView(active: false)

    public init(active: Bool) { self.active = active }

    public init(_ introspection: Introspection) {
        active = true
        sub = introspection.account.id
        username = introspection.account.email
        clientID = introspection.record.clientID
        tokenType = introspection.tokenType
        iat = Int64(introspection.record.issuedAt.timeIntervalSince1970)
        exp = Int64(introspection.record.expiresAt.timeIntervalSince1970)
        scope = introspection.record.scope.isEmpty ? nil : introspection.record.scope
        emailVerified = introspection.account.emailVerified
        fingerprint = introspection.record.fingerprint
    }
}
