import Foundation

/// An authorization code and the sign-out token of the chain it starts; only the caller ever sees them.
struct IssuedCode: Sendable {
    var code: String
    var signOutToken: String
}

extension CaptureService {
    /// Authorization codes live this long and work once (docs/contract.md §6).
    static let authorizationCodeLifetime: TimeInterval = 60

    /// A one-time code for `response_type=code`/`code_and_token`, bound to the client, the redirect URI and the
    /// PKCE challenge; it starts its own chain, which the tokens it is exchanged for continue. A sign-out token for
    /// that chain is stored in the same write (see `signOutRecord`).
    func issueCode(
        for user: User, client: Client, redirectURI: String?, codeChallenge: String?, refreshSecret: String?,
        device: String? = nil
    ) async throws -> IssuedCode {
        let code = mintToken()
        let now = time.now()
        var record = TokenRecord(
            kind: .code, hash: TokenMinter.key(code), userID: user.id, clientID: client.clientID,
            chainID: minter.chainID(at: now), issuedAt: now, expiresAt: now + Self.authorizationCodeLifetime,
            refreshSecret: refreshSecret.flatMap { $0.isEmpty ? nil : $0 })
        record.redirectURI = redirectURI
        record.codeChallenge = codeChallenge
        record.device = device
        let signOut = mintToken()
        let records = [record, signOutRecord(signOut, joining: record)]
        try await store.tokens.insert(records)
        metrics.issued(records)
        return IssuedCode(code: code, signOutToken: signOut)
    }

    /// `/oauth/token` with `grant_type=authorization_code` (RFC 6749 §4.1.3, RFC 7636 §4.6): the same client,
    /// the same redirect URI (origin + path), the PKCE verifier when the code has a challenge; once only.
    public func exchangeCode(
        _ code: String?, redirectURI: String?, codeVerifier: String?, clientID: String?, clientSecret: String?
    ) async throws -> IssuedGrant {
        let client = try await authenticateClient(id: clientID, secret: clientSecret)
        guard let code, !code.isEmpty else { throw CaptureError.missingArgument("code") }
        let notUsable = "authorization code is invalid, used, or was issued to another client"
        guard let record = try await store.tokens.find(hash: TokenMinter.key(code)), record.kind == .code,
            record.clientID == client.clientID
        else { throw CaptureError.invalidGrant(notUsable) }
        if record.state(at: time.now()) == .expired { throw CaptureError.authorizationCodeExpired }
        if let bound = record.redirectURI {
            let supplied = redirectURI ?? ""
            guard supplied == bound || supplied == ownPageAddress(of: bound, client: client) else {
                throw CaptureError.redirectURIMismatch(expected: bound, supplied: supplied)
            }
        }
        if let challenge = record.codeChallenge {
            guard let codeVerifier, !codeVerifier.isEmpty else { throw CaptureError.missingArgument("code_verifier") }
            guard PKCE.verify(codeVerifier, challenge: challenge) else {
                throw CaptureError.invalidGrant("code_verifier does not match the code_challenge")
            }
        }
        try await requireProvenAddress(presenting: code, client: client)
        return try await redeem(
            code, kind: .code, client: client,
            reused: "authorization code was already used; the tokens issued for it have been revoked",
            notUsable: notUsable)
    }
}
