import Foundation

extension CaptureService {
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
        try await store.tokens.insert(records)
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

    /// `/oauth/token` with `grant_type=refresh_token`: rotates the refresh token; a reused one revokes its chain.
    public func refresh(refreshToken: String?, clientID: String?, clientSecret: String?) async throws -> IssuedGrant {
        let client = try await authenticateClient(id: clientID, secret: clientSecret)
        guard let refreshToken, !refreshToken.isEmpty else { throw CaptureError.missingArgument("refresh_token") }
        try await requireProvenAddress(presenting: refreshToken, client: client)
        return try await redeem(
            refreshToken, kind: .refresh, client: client,
            reused: "refresh token was already used; its session has been revoked",
            notUsable: "refresh token is invalid, expired, revoked or belongs to another client")
    }

    /// Marks a one-use token used and stores the next pair in its chain, in one transaction; a token used
    /// twice revokes everything issued from it.
    func redeem(_ token: String, kind: TokenKind, client: Client, reused: String, notUsable: String) async throws -> IssuedGrant {
        let grant = mintGrant(for: client)
        let outcome = try await store.tokens.redeem(
            hash: TokenMinter.key(token), kind: kind, now: time.now(), client: client.clientID, allowExpired: false,
            replacements: records(of: grant))
        switch outcome {
        case .redeemed:
            metrics.issued([.access, .refresh])
            return grant
        case .accountDisabled(let revoked):
            metrics.revoked(revoked, .accountDisabled)
            throw CaptureError.invalidGrant("the account behind this grant is deactivated")
        case .reused(let revoked):
            metrics.revoked(revoked, .reuse)
            await recordSecurityEvent(
                "token.reuse", target: TokenRecord.fingerprint(ofKey: TokenMinter.key(token)), outcome: "chain_revoked",
                detail: "a used \(kind.rawValue) was presented again by \(client.clientID); its chain is revoked")
            throw CaptureError.invalidGrant(reused)
        case .notUsable:
            throw CaptureError.invalidGrant(notUsable)
        }
    }

    /// The user and token behind an access token: unknown or revoked → invalid (200), expired → 414,
    /// deactivated account → 403.
    public func authenticate(accessToken: String?) async throws -> (User, TokenRecord) {
        let (user, lookup) = try await authenticated(accessToken: accessToken, { $0 }) {
            try await store.checks.check($0, .user)
        }
        return (user, lookup.record)
    }

    /// `authenticate` for `/entity`: the user's record as stored comes with the check (`TokenChecks`, `.record`).
    func authenticatedRecord(accessToken: String?) async throws -> (User, TokenCheck) {
        try await authenticated(accessToken: accessToken, { $0 }) { try await store.checks.check($0, .record) }
    }

    /// `authenticate`'s checks on what `find` reads for the token's key (its `check`).
    private func authenticated<Lookup>(
        accessToken: String?, _ check: (Lookup) -> TokenCheck, _ find: (String) async throws -> Lookup?
    ) async throws -> (User, Lookup) {
        guard let accessToken, !accessToken.isEmpty else { throw CaptureError.missingArgument("access_token") }
        guard let found = try await find(TokenMinter.key(accessToken)) else { throw CaptureError.invalidAccessToken }
        let lookup = check(found)
        guard lookup.record.kind == .access else { throw CaptureError.invalidAccessToken }
        switch lookup.record.state(at: time.now()) {
        case .active: break
        case .expired: throw CaptureError.accessTokenExpired
        case .revoked, .used: throw CaptureError.invalidAccessToken
        }
        guard let user = lookup.user else { throw CaptureError.invalidAccessToken }
        guard !user.isDisabled else { throw CaptureError.accountDeactivated }
        return (user, found)
    }

    /// RFC 7009 revocation: a token of this client revokes its whole chain (signing out); unknown tokens are fine.
    public func revoke(token: String?, clientID: String?, clientSecret: String?) async throws {
        let client = try await authenticateClient(id: clientID, secret: clientSecret)
        guard let token, !token.isEmpty else { throw CaptureError.missingArgument("token") }
        guard let record = try await store.tokens.find(hash: TokenMinter.key(token)), record.clientID == client.clientID
        else { return }
        metrics.revoked(try await store.tokens.revokeChain(record.chainID, of: record.userID, at: time.now()), .signOut)
    }

    /// What an operator or backend may learn about a token: nil when it is not active.
    public func introspect(token: String) async throws -> Introspection? {
        guard !token.isEmpty else { return nil }
        return introspection(of: try await store.checks.check(TokenMinter.key(token), .account))
    }

    func introspection(of lookup: TokenCheck?) -> Introspection? {
        guard let lookup, lookup.record.kind.authorizes, lookup.record.state(at: time.now()) == .active,
            let account = lookup.account, !account.isDisabled
        else { return nil }
        return Introspection(record: lookup.record, account: account)
    }

    /// `POST /oauth/introspect` (RFC 7662): only a confidential client, authenticated by its secret, may ask.
    /// A call without client authentication is RFC 6749's `invalid_client` (401), as a missing secret is.
    /// One read: the token's, which brings the clients' version, so the client comes from the directory.
    public func introspect(token: String?, clientID: String?, clientSecret: String?) async throws -> Introspection? {
        guard let clientID, !clientID.isEmpty else { throw CaptureError.invalidClient }
        let presented = token.flatMap { $0.isEmpty ? nil : $0 }
        var lookup: TokenCheck?
        if let presented { lookup = try await store.checks.check(TokenMinter.key(presented), .account) }
        let client = try await authenticateClient(id: clientID, secret: clientSecret, version: lookup?.clientsVersion)
        guard client.isConfidential else {
            throw CaptureError.invalidClient
        }
        guard presented != nil else { throw CaptureError.missingArgument("token") }
        return introspection(of: lookup)
    }
}
