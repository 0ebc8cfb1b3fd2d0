import Foundation

/// The one place an OpenID Connect client's authorization code is issued, whether the person signed in on the pages
/// just now (`FlowSteps.complete`) or earlier in this browser (`OIDCService.authorize`, single sign-on): the code is
/// bound to the client, its exact redirect URI and PKCE challenge, and its chain's `OIDCGrant` is stored with it.
struct OIDCCodes: Sendable {
    let issuer: TokenIssuer
    let grants: any OIDCGrantRepository
    let codeKey: CodeKey
    let minter: TokenMinter
    let time: any TimeSource
    let settings: ServiceSettings

    /// The sealed request a page carried (`oidc_request`), for the client the page signs in to.
    func opened(_ sealed: String, clientID: String) throws -> AuthorizationRequest {
        guard let request = AuthorizationRequest.opened(sealed, key: codeKey, clientID: clientID, now: time.now())
        else {
            throw CaptureError.invalidArgument(
                "oidc_request", "is not a current authorization request for this client: start the sign-in again")
        }
        return request
    }

    /// A new browser session for a sign-in that happened now.
    func newSession(for user: User, methods: [String], acr: String? = nil) -> BrowserSession {
        let now = time.now()
        return BrowserSession(
            id: String(TokenMinter.hash(minter.mint()).prefix(32)), userID: user.id, authTime: now, methods: methods,
            acr: acr, expiresAt: now + settings.openIDConnect.sessionLifetime)
    }

    /// Issues the code for `request` to `user` in `session` and answers where the browser goes with it.
    func issue(
        _ request: AuthorizationRequest, to user: User, client: Client, session: BrowserSession
    ) async throws
        -> String
    {
        let issued = try await issuer.issueCode(
            for: user, client: client, redirectURI: request.redirectURI, codeChallenge: request.codeChallenge,
            refreshSecret: nil, scope: request.scopes.joined(separator: " "))
        try await grants.insert(
            OIDCGrant(
                chainID: issued.chainID, issuer: request.issuer, clientID: client.clientID, userID: user.id,
                scopes: request.scopes,
                nonce: request.nonce, authTime: session.authTime, methods: session.methods, acr: session.acr,
                sessionID: session.id, expiresAt: time.now() + settings.refreshTokenLifetime))
        return request.reply([("code", issued.code)])
    }
}
