import Foundation

extension CaptureService {
    func accessLifetime(for client: Client) -> TimeInterval {
        client.accessTokenLifeHours.map { $0 * 3600 } ?? settings.accessTokenLifetime
    }

    /// Mints an access + refresh token pair in a new (or the given) chain and stores their hashes.
    func issueTokens(
        for user: User, client: Client, refreshSecret: String?, provider: String = "capture"
    ) async throws -> IssuedGrant {
        let now = time.now()
        let access = minter.mint()
        let refresh = minter.mint()
        let chain = minter.identifier()
        let lifetime = accessLifetime(for: client)
        let refreshSecret = refreshSecret.flatMap { $0.isEmpty ? nil : $0 }
        try await store.tokens.insert([
            TokenRecord(
                kind: .access, hash: TokenMinter.hash(access), userID: user.id, clientID: client.clientID,
                chainID: chain, authProvider: provider, issuedAt: now, expiresAt: now + lifetime,
                refreshSecret: refreshSecret),
            TokenRecord(
                kind: .refresh, hash: TokenMinter.hash(refresh), userID: user.id, clientID: client.clientID,
                chainID: chain, authProvider: provider, issuedAt: now, expiresAt: now + settings.refreshTokenLifetime,
                refreshSecret: refreshSecret),
        ])
        return IssuedGrant(accessToken: access, refreshToken: refresh, expiresIn: Int(lifetime))
    }

    /// `/oauth/token` with `grant_type=refresh_token`: rotates the refresh token; a reused one revokes its chain.
    public func refresh(refreshToken: String?, clientID: String?, clientSecret: String?) async throws -> IssuedGrant {
        let client = try await authenticateClient(id: clientID, secret: clientSecret)
        guard let refreshToken, !refreshToken.isEmpty else { throw CaptureError.missingArgument("refresh_token") }
        let now = time.now()
        let access = minter.mint()
        let refresh = minter.mint()
        let lifetime = accessLifetime(for: client)
        let refreshLifetime = settings.refreshTokenLifetime
        let outcome = try await store.tokens.rotateRefresh(
            hash: TokenMinter.hash(refreshToken), now: now, client: client.clientID
        ) { old in
            [
                TokenRecord(
                    kind: .access, hash: TokenMinter.hash(access), userID: old.userID, clientID: old.clientID,
                    chainID: old.chainID, scope: old.scope, authProvider: old.authProvider, issuedAt: now,
                    expiresAt: now + lifetime, refreshSecret: old.refreshSecret),
                TokenRecord(
                    kind: .refresh, hash: TokenMinter.hash(refresh), userID: old.userID, clientID: old.clientID,
                    chainID: old.chainID, scope: old.scope, authProvider: old.authProvider, issuedAt: now,
                    expiresAt: now + refreshLifetime, refreshSecret: old.refreshSecret),
            ]
        }
        switch outcome {
        case .rotated(let old):
            guard let user = try await store.users.find(id: old.userID), !user.isDisabled else {
                try await store.tokens.revokeChain(old.chainID, at: now)
                throw CaptureError.invalidGrant("the account behind this refresh token is deactivated")
            }
            return IssuedGrant(accessToken: access, refreshToken: refresh, expiresIn: Int(lifetime))
        case .reused:
            throw CaptureError.invalidGrant("refresh token was already used; its session has been revoked")
        case .notUsable:
            throw CaptureError.invalidGrant("refresh token is invalid, expired, revoked or belongs to another client")
        }
    }

    /// The user and token behind an access token: unknown or revoked → invalid (200), expired → 414,
    /// deactivated account → 403.
    public func authenticate(accessToken: String?) async throws -> (User, TokenRecord) {
        guard let accessToken, !accessToken.isEmpty else { throw CaptureError.missingArgument("access_token") }
        guard let (record, user) = try await store.tokens.findWithUser(hash: TokenMinter.hash(accessToken)),
            record.kind == .access
        else { throw CaptureError.invalidAccessToken }
        switch record.state(at: time.now()) {
        case .active: break
        case .expired: throw CaptureError.accessTokenExpired
        case .revoked, .used: throw CaptureError.invalidAccessToken
        }
        guard let user else { throw CaptureError.invalidAccessToken }
        guard !user.isDisabled else { throw CaptureError.accountDeactivated }
        return (user, record)
    }

    /// RFC 7009 revocation: a token of this client revokes its whole chain (signing out); unknown tokens are fine.
    public func revoke(token: String?, clientID: String?, clientSecret: String?) async throws {
        let client = try await authenticateClient(id: clientID, secret: clientSecret)
        guard let token, !token.isEmpty else { throw CaptureError.missingArgument("token") }
        guard let record = try await store.tokens.find(hash: TokenMinter.hash(token)), record.clientID == client.clientID
        else { return }
        try await store.tokens.revokeChain(record.chainID, at: time.now())
    }

    /// What an operator or backend may learn about a token: nil when it is not active.
    public func introspect(token: String) async throws -> Introspection? {
        guard !token.isEmpty, let (record, user) = try await store.tokens.findWithUser(hash: TokenMinter.hash(token)),
            record.state(at: time.now()) == .active, let user, !user.isDisabled
        else { return nil }
        return Introspection(record: record, user: user)
    }

    /// `POST /oauth/introspect` (RFC 7662): only a confidential client, authenticated by its secret, may ask.
    public func introspect(token: String?, clientID: String?, clientSecret: String?) async throws -> Introspection? {
        let client = try await authenticateClient(id: clientID, secret: clientSecret)
        guard client.isConfidential else {
            throw CaptureError.invalidClient
        }
        guard let token, !token.isEmpty else { throw CaptureError.missingArgument("token") }
        return try await introspect(token: token)
    }
}
