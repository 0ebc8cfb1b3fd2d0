import Foundation

/// When a one-use token (a refresh token, an authorization code, an access token behind a signed refresh) may be
/// redeemed: of the expected kind and client, active (or only expired, when `allowExpired`). A token presented
/// after it was used revokes its chain (RFC 6819 §5.2.2.3, RFC 6749 §4.1.2); one whose account is deactivated
/// revokes its chain and is not redeemed (the session ends there). Every storage backend carries out
/// what this decides, so the rule is the same on each.
public struct RedemptionRule: Sendable {
    public let kind: TokenKind
    public let client: String
    public let now: Date
    public let allowExpired: Bool

    public init(kind: TokenKind, client: String, now: Date, allowExpired: Bool) {
        self.kind = kind
        self.client = client
        self.now = now
        self.allowExpired = allowExpired
    }

    public func step(
        for token: TokenRecord?, accountDisabled: Bool, replacements: (TokenRecord) -> [TokenRecord]
    ) -> RedemptionStep {
        guard let token, token.kind == kind, token.clientID == client else { return .refuse }
        switch token.state(at: now) {
        case .used: return .revokeChain
        case .revoked: return .refuse
        case .expired where !allowExpired: return .refuse
        case .active, .expired:
            return accountDisabled ? .revokeChainOfDisabledAccount : .redeem(replacements: replacements(token))
        }
    }
}

extension TokenRepository {
    /// `redeem` under `RedemptionRule`: the token `hash` of `kind` issued to `client`, followed by
    /// `replacements(old)` when it is redeemed.
    public func redeem(
        hash: String, kind: TokenKind, now: Date, client: String, allowExpired: Bool,
        replacements: @escaping @Sendable (TokenRecord) -> [TokenRecord]
    ) async throws -> Redemption {
        let rule = RedemptionRule(kind: kind, client: client, now: now, allowExpired: allowExpired)
        return try await redeem(hash: hash, now: now) { token, accountDisabled in
            rule.step(for: token, accountDisabled: accountDisabled, replacements: replacements)
        }
    }
}
