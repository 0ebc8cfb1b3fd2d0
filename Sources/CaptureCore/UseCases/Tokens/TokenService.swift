import Foundation

/// The token endpoints: refresh, code exchange, revocation, introspection, `/verify`, Janrain's signed refresh.
public struct TokenService: Sendable {
    let tokens: any TokenRepository
    let checks: any TokenChecks
    let time: any TimeSource
    let metrics: CaptureMetrics
    let settings: ServiceSettings
    let issuer: TokenIssuer
    let clientAccess: ClientAccess
    let provenAddress: ProvenAddress
    let audit: AuditTrail
}

extension TokenService {
    /// `/oauth/token` with `grant_type=refresh_token`: rotates the refresh token; a reused one revokes its chain.
    public func refresh(refreshToken: String?, clientID: String?, clientSecret: String?) async throws -> IssuedGrant {
        let client = try await clientAccess.authenticateClient(id: clientID, secret: clientSecret)
        guard let refreshToken, !refreshToken.isEmpty else { throw CaptureError.missingArgument("refresh_token") }
        try await provenAddress.requireProvenAddress(presenting: refreshToken, client: client)
        return try await redeem(
            refreshToken, kind: .refresh, client: client,
            reused: "refresh token was already used; its session has been revoked",
            notUsable: "refresh token is invalid, expired, revoked or belongs to another client")
    }

    /// Marks a one-use token used and stores the next pair in its chain, in one transaction; a token used
    /// twice revokes everything issued from it.
    func redeem(_ token: String, kind: TokenKind, client: Client, reused: String, notUsable: String) async throws -> IssuedGrant {
        var grant = issuer.mintGrant(for: client)
        let outcome = try await tokens.redeem(
            hash: TokenMinter.key(token), kind: kind, now: time.now(), client: client.clientID, allowExpired: false,
            replacements: issuer.records(of: grant))
        switch outcome {
        case .redeemed(let used):
            metrics.issued([.access, .refresh])
            grant.chainID = used.chainID
            grant.scope = used.scope
            return grant
        case .accountDisabled(let revoked):
            metrics.revoked(revoked, .accountDisabled)
            throw CaptureError.invalidGrant("the account behind this grant is deactivated")
        case .reused(let revoked):
            metrics.revoked(revoked, .reuse)
            await audit.recordSecurityEvent(
                "token.reuse", target: TokenRecord.fingerprint(ofKey: TokenMinter.key(token)), outcome: "chain_revoked",
                detail: "a used \(kind.rawValue) was presented again by \(client.clientID); its chain is revoked")
            throw CaptureError.invalidGrant(reused)
        case .notUsable:
            throw CaptureError.invalidGrant(notUsable)
        }
    }

    /// RFC 7009 revocation: a token of this client revokes its whole chain (signing out); unknown tokens are fine.
    public func revoke(token: String?, clientID: String?, clientSecret: String?) async throws {
        let client = try await clientAccess.authenticateClient(id: clientID, secret: clientSecret)
        guard let token, !token.isEmpty else { throw CaptureError.missingArgument("token") }
        guard let record = try await tokens.find(hash: TokenMinter.key(token)), record.clientID == client.clientID
        else { return }
        metrics.revoked(try await tokens.revokeChain(record.chainID, of: record.userID, at: time.now()), .signOut)
    }

    /// What an operator or backend may learn about a token: nil when it is not active.
    public func introspect(token: String) async throws -> Introspection? {
        guard !token.isEmpty else { return nil }
        return introspection(of: try await checks.check(TokenMinter.key(token), .account))
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
        if let presented { lookup = try await checks.check(TokenMinter.key(presented), .account) }
        let client = try await clientAccess.authenticateClient(
            id: clientID, secret: clientSecret, version: lookup?.clientsVersion)
        guard client.isConfidential else {
            throw CaptureError.invalidClient
        }
        guard presented != nil else { throw CaptureError.missingArgument("token") }
        return introspection(of: lookup)
    }
}
