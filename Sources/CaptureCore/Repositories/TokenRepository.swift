import Foundation

/// Which tokens to list, newest first. A state is judged at `now` as `TokenRecord.state(at:)` judges it.
public struct TokenFilter: Sendable, Equatable {
    public var userID: String?
    public var clientID: String?
    public var kind: TokenKind?
    public var state: TokenState?
    public var now: Date
    public var page: Page

    public init(
        userID: String? = nil, clientID: String? = nil, kind: TokenKind? = nil, state: TokenState? = nil,
        now: Date = Date(), page: Page = Page()
    ) {
        self.userID = userID
        self.clientID = clientID
        self.kind = kind
        self.state = state
        self.now = now
        self.page = page
    }
}

/// The tokens one call newly revoked, by kind (already revoked ones are not counted again).
public struct RevokedTokens: Sendable, Equatable {
    public var byKind: [TokenKind: Int]

    public init(_ byKind: [TokenKind: Int] = [:]) {
        self.byKind = byKind.filter { $0.value > 0 }
    }

    public var count: Int { byKind.values.reduce(0, +) }
}

/// What happened when a one-use token (a refresh token, an authorization code) was presented.
public enum Redemption: Sendable, Equatable {
    /// The token was marked used and its replacements stored, in one transaction.
    case redeemed(TokenRecord)
    /// The token had already been used: its whole chain is now revoked (these tokens).
    case reused(RevokedTokens)
    /// The account behind the token is deactivated: its whole chain is now revoked, nothing issued.
    case accountDisabled(RevokedTokens)
    case notUsable

    /// Whether tokens were revoked (a reuse, a deactivated account): what a kept token check depends on changed.
    public var revokedTokens: Bool {
        switch self {
        case .reused, .accountDisabled: true
        case .redeemed, .notUsable: false
        }
    }
}

/// What storage is to do with a presented one-use token; decided by `RedemptionRule`.
public enum RedemptionStep: Sendable, Equatable {
    /// Mark it used and store these tokens, which follow it in its chain.
    case redeem(replacements: [TokenRecord])
    /// It was used before: revoke its whole chain.
    case revokeChain
    /// Its account is deactivated: revoke its whole chain, issue nothing.
    case revokeChainOfDisabledAccount
    case refuse
}

/// Storage of token hashes. All multi-row changes are single transactions. A token check reads through
/// `TokenChecks`, not here.
public protocol TokenRepository: Sendable {
    func insert(_ tokens: [TokenRecord]) async throws
    func find(hash: String) async throws -> TokenRecord?
    func find(id: Int64) async throws -> TokenRecord?
    /// Tokens whose SHA-256 starts with `prefix` (fingerprint lookup; `TokenRecord.fingerprint`), at most 10. `AdminService.findToken` passes
    /// only hex digits, so the prefix is never a pattern.
    func find(fingerprint prefix: String) async throws -> [TokenRecord]
    func list(_ filter: TokenFilter) async throws -> [TokenRecord]
    /// In one transaction: reads the token `hash` (locked against concurrent redemptions) and whether its account
    /// is deactivated (or gone), lets `decide` judge them (`RedemptionRule`, in Core) and carries the step out:
    /// marks it used at `now` and stores the replacements, or revokes its chain, or changes nothing.
    func redeem(
        hash: String, now: Date, _ decide: @escaping @Sendable (_ token: TokenRecord?, _ accountDisabled: Bool) -> RedemptionStep
    ) async throws -> Redemption
    /// Each returns the tokens it newly revoked.
    @discardableResult func revoke(id: Int64, at: Date) async throws -> RevokedTokens
    /// The chain `chainID` of `userID`'s tokens (looked up by the two together: one index serves both).
    @discardableResult func revokeChain(_ chainID: String, of userID: String, at: Date) async throws -> RevokedTokens
    @discardableResult func revokeAll(userID: String, at: Date) async throws -> RevokedTokens
    /// Every token of the user outside `exceptChain` (the other sessions).
    @discardableResult func revokeAll(userID: String, exceptChain: String, at: Date) async throws -> RevokedTokens
    @discardableResult func revokeAll(clientID: String, at: Date) async throws -> RevokedTokens
    /// Deletes tokens that expired before `cutoff`, access tokens only when also issued before `accessIssuedBefore`
    /// (the signed refresh still takes an expired one; `Housekeeping.purgeExpiredTokens` sets both); returns how many.
    func purge(expiredBefore cutoff: Date, accessIssuedBefore: Date) async throws -> Int
}
