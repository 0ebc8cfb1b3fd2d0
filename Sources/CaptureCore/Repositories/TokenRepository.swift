import Foundation

/// Which tokens to list.
public struct TokenFilter: Sendable, Equatable {
    public var userID: String?
    public var clientID: String?
    public var kind: TokenKind?
    /// Only tokens active at `now`.
    public var activeAt: Date?
    public var limit: Int

    public init(userID: String? = nil, clientID: String? = nil, kind: TokenKind? = nil, activeAt: Date? = nil, limit: Int = 100) {
        self.userID = userID
        self.clientID = clientID
        self.kind = kind
        self.activeAt = activeAt
        self.limit = limit
    }
}

/// What happened when a refresh token was presented.
public enum RefreshRotation: Sendable, Equatable {
    /// The old token was marked used and the replacements stored, in one transaction.
    case rotated(TokenRecord)
    /// The token had already been rotated: its whole chain is now revoked.
    case reused
    case notUsable
}

/// Storage of token hashes. All multi-row changes are single transactions.
public protocol TokenRepository: Sendable {
    func insert(_ tokens: [TokenRecord]) async throws
    func find(hash: String) async throws -> TokenRecord?
    /// The token with this hash and the user it belongs to, in one read (the hot path of every token check).
    func findWithUser(hash: String) async throws -> (TokenRecord, User?)?
    func find(id: Int64) async throws -> TokenRecord?
    /// Tokens whose hash starts with `prefix` (fingerprint lookup).
    func find(fingerprint prefix: String) async throws -> [TokenRecord]
    func list(_ filter: TokenFilter) async throws -> [TokenRecord]
    /// Atomically: if the refresh token `hash` is active, mark it used and insert `replacements(old)`;
    /// if it was already used, revoke its chain.
    func rotateRefresh(
        hash: String, now: Date, client: String, replacements: @Sendable (TokenRecord) -> [TokenRecord]
    ) async throws -> RefreshRotation
    /// Returns how many tokens were newly revoked.
    @discardableResult func revoke(id: Int64, at: Date) async throws -> Int
    @discardableResult func revokeChain(_ chainID: String, at: Date) async throws -> Int
    @discardableResult func revokeAll(userID: String, at: Date) async throws -> Int
    @discardableResult func revokeAll(clientID: String, at: Date) async throws -> Int
    /// Deletes tokens that expired before `cutoff`; returns how many.
    func purge(expiredBefore cutoff: Date) async throws -> Int
}
