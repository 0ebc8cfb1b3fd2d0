import Foundation

/// Mints and stores tokens, codes, sign-out and device tokens.
public struct TokenIssuer: Sendable {
    let tokens: any TokenRepository
    let minter: TokenMinter
    let time: any TimeSource
    let settings: ServiceSettings
    let metrics: CaptureMetrics
}

extension TokenIssuer {
    func accessLifetime(for client: Client) -> TimeInterval {
        client.accessTokenLifeHours.map { $0 * 3600 } ?? settings.accessTokenLifetime
    }

    /// Mints an access + refresh token pair in a new chain and stores their hashes.
    func issueTokens(
        for user: User, client: Client, refreshSecret: String?, provider: String = "capture", device: String? = nil
    ) async throws -> IssuedGrant {
        var chainStart = TokenRecord(
            kind: .access, hash: "", userID: user.id, clientID: client.clientID, chainID: minter.chainID(at: time.now()),
            authProvider: provider, issuedAt: time.now(), expiresAt: time.now(),
            refreshSecret: refreshSecret.flatMap { $0.isEmpty ? nil : $0 })
        chainStart.device = device
        let grant = mintGrant(for: client)
        let records = records(of: grant, following: chainStart)
        try await tokens.insert(records)
        metrics.issued(records)
        return grant
    }

    /// New access and refresh tokens for `client`; only the caller ever sees them.
    func mintGrant(for client: Client) -> IssuedGrant {
        IssuedGrant(accessToken: mintToken(), refreshToken: mintToken(), expiresIn: Int(accessLifetime(for: client)))
    }

    /// A new token for the tokens table, led by the time it is minted (`TokenMinter.mintToken`).
    func mintToken() -> String { minter.mintToken(at: time.now()) }

    /// The stored form of `grant`, continuing `previous`'s chain (same user, client, scope, provider, refresh secret).
    func records(of grant: IssuedGrant, following previous: TokenRecord) -> [TokenRecord] {
        records(of: grant)(previous)
    }

    /// `records(of:following:)` in two steps: the keys (a SHA-256 each) and times now, where the request runs; the
    /// records when the chain they continue is known, inside a redemption's write, on the one writer, which then
    /// has only values to copy.
    func records(of grant: IssuedGrant) -> @Sendable (_ previous: TokenRecord) -> [TokenRecord] {
        let now = time.now()
        let access = TokenMinter.key(grant.accessToken), refresh = TokenMinter.key(grant.refreshToken)
        let accessExpiry = now + TimeInterval(grant.expiresIn), refreshExpiry = now + settings.refreshTokenLifetime
        return { previous in
            [
                Self.record(.access, key: access, following: previous, issuedAt: now, expiresAt: accessExpiry),
                Self.record(.refresh, key: refresh, following: previous, issuedAt: now, expiresAt: refreshExpiry),
            ]
        }
    }

    /// The stored form of one new token in `previous`'s chain, stored under `key`.
    static func record(
        _ kind: TokenKind, key: String, following previous: TokenRecord, issuedAt: Date, expiresAt: Date
    ) -> TokenRecord {
        var record = TokenRecord(
            kind: kind, hash: key, userID: previous.userID, clientID: previous.clientID, chainID: previous.chainID,
            scope: previous.scope, authProvider: previous.authProvider, issuedAt: issuedAt, expiresAt: expiresAt,
            refreshSecret: previous.refreshSecret)
        record.device = previous.device
        return record
    }

}

extension TokenIssuer {
    /// Authorization codes live this long and work once (docs/contract.md §6).
    static let authorizationCodeLifetime: TimeInterval = 60

    /// A one-time code for `response_type=code`/`code_and_token`, bound to the client, the redirect URI and the
    /// PKCE challenge; it starts its own chain, which the tokens it is exchanged for continue. A sign-out token for
    /// that chain is stored in the same write (see `signOutRecord`).
    func issueCode(
        for user: User, client: Client, redirectURI: String?, codeChallenge: String?, refreshSecret: String?,
        device: String? = nil, scope: String = ""
    ) async throws -> IssuedCode {
        let code = mintToken()
        let now = time.now()
        var record = TokenRecord(
            kind: .code, hash: TokenMinter.key(code), userID: user.id, clientID: client.clientID,
            chainID: minter.chainID(at: now), scope: scope, issuedAt: now,
            expiresAt: now + Self.authorizationCodeLifetime, refreshSecret: refreshSecret.flatMap { $0.isEmpty ? nil : $0 })
        record.redirectURI = redirectURI
        record.codeChallenge = codeChallenge
        record.device = device
        let signOut = mintToken()
        let records = [record, signOutRecord(signOut, joining: record)]
        try await tokens.insert(records)
        metrics.issued(records)
        return IssuedCode(code: code, signOutToken: signOut, chainID: record.chainID)
    }

}

extension TokenIssuer {
    /// The stored form of a sign-out token for `chainStart`'s chain (docs/adr/0012-sign-out-token.md). It lives as long as a refresh token issued at the same moment; `/oauth/revoke` takes it like any token of
    /// the chain and revokes the whole chain. Every other endpoint asks for a specific kind of token (access, refresh,
    /// code, device), so it is refused there, and introspection calls it inactive (`TokenKind.authorizes`).
    func signOutRecord(_ token: String, joining chainStart: TokenRecord) -> TokenRecord {
        TokenRecord(
            kind: .signOut, hash: TokenMinter.key(token), userID: chainStart.userID, clientID: chainStart.clientID,
            chainID: chainStart.chainID, authProvider: chainStart.authProvider, issuedAt: chainStart.issuedAt,
            expiresAt: chainStart.issuedAt + settings.refreshTokenLifetime)
    }
}

extension TokenIssuer {
    /// How long a device stays one its owner signed in on, and how many an account keeps.
    static let deviceLifetime: TimeInterval = 365 * 86400
    static let devicesPerUser = 10

    /// The stored key of `token` when it is an active device token of `user`.
    func trustedDevice(_ token: String?, of user: User?) async throws -> String? {
        guard let token, !token.isEmpty, let user else { return nil }
        let hash = TokenMinter.key(token)
        guard let record = try await tokens.find(hash: hash), record.kind == .device, record.userID == user.id,
            record.state(at: time.now()) == .active
        else { return nil }
        return hash
    }

    /// A new device token for `user` when the caller asked for one (sent `device_token`) and had none valid;
    /// the oldest beyond `devicesPerUser` are revoked so an account's list stays short.
    func deviceToken(for user: User, client: Client, request: FlowRequest, trusted: String?) async throws -> String? {
        guard request.deviceToken != nil, trusted == nil else { return nil }
        let token = mintToken()
        let now = time.now()
        let device = TokenRecord(
            kind: .device, hash: TokenMinter.key(token), userID: user.id, clientID: client.clientID,
            chainID: minter.identifier(), issuedAt: now, expiresAt: now + Self.deviceLifetime)
        try await tokens.insert([device])
        metrics.issued([device])
        let devices = try await tokens.list(TokenFilter(userID: user.id, kind: .device, state: .active, now: now))
        for stale in devices.dropFirst(Self.devicesPerUser) {
            if let id = stale.id { metrics.revoked(try await tokens.revoke(id: id, at: now), .deviceReplaced) }
        }
        return token
    }
}
