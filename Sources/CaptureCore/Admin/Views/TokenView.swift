import Foundation

/// A stored token for operators, by fingerprint: never the token or its hash.
public struct TokenView: Codable, Sendable, Equatable {
    public var id: Int64?
    public var fingerprint: String
    /// `TokenKind`'s name.
    public var kind: String
    /// `TokenState`'s name at the time the view was made.
    public var state: String
    public var userID: String
    /// The user's address; nil when the user is gone.
    public var email: String?
    public var clientID: String
    public var chainID: String
    public var scope: String
    public var authProvider: String
    public var issuedAt: Date
    public var expiresAt: Date
    public var usedAt: Date?
    public var revokedAt: Date?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, fingerprint, kind, state, email, scope
        case userID = "user_id", clientID = "client_id", chainID = "chain_id", authProvider = "auth_provider"
        case issuedAt = "issued_at", expiresAt = "expires_at", usedAt = "used_at", revokedAt = "revoked_at"
    }

    public init(_ record: TokenRecord, email: String?, now: Date) {
        id = record.id
        fingerprint = record.fingerprint
        kind = record.kind.rawValue
        state = record.state(at: now).rawValue
        userID = record.userID
        self.email = email
        clientID = record.clientID
        chainID = record.chainID
        scope = record.scope
        authProvider = record.authProvider
        issuedAt = record.issuedAt
        expiresAt = record.expiresAt
        usedAt = record.usedAt
        revokedAt = record.revokedAt
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(fingerprint, forKey: .fingerprint)
        try container.encode(kind, forKey: .kind)
        try container.encode(state, forKey: .state)
        try container.encode(userID, forKey: .userID)
        try container.encode(email, forKey: .email)
        try container.encode(clientID, forKey: .clientID)
        try container.encode(chainID, forKey: .chainID)
        try container.encode(scope, forKey: .scope)
        try container.encode(authProvider, forKey: .authProvider)
        try container.encode(issuedAt, forKey: .issuedAt)
        try container.encode(expiresAt, forKey: .expiresAt)
        try container.encode(usedAt, forKey: .usedAt)
        try container.encode(revokedAt, forKey: .revokedAt)
    }
}
