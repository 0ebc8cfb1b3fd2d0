import CaptureJSON
import Foundation

/// Where `/oidc/authorize` sends the browser.
public enum AuthorizeOutcome: Sendable, Equatable {
    /// Nothing may go to the redirect URI (unknown client, unregistered redirect URI): an error page.
    case refused(AuthorizationError)
    /// Back to the client: with a code (single sign-on) or an error.
    case redirect(String)
    /// To the sign-in pages, carrying the sealed request.
    case signIn(String)
}

/// The OpenID Connect provider (docs/oidc.md): the authorization endpoint in front of the flow pages, ID tokens for
/// the token endpoint, userinfo and RP-initiated logout. Discovery and keys are in `OIDCDiscovery` and `SigningKeys`.
public struct OIDCService: Sendable {
    let clientAccess: ClientAccess
    let clientSettings: ClientSettingsAccess
    let grants: any OIDCGrantRepository
    let tokens: any TokenRepository
    let users: any UserRepository
    let accessTokens: AccessTokenCheck
    let signingKeys: SigningKeys
    let codes: OIDCCodes
    let claims: ClaimMapping
    let catalog: FlowCatalog
    let settings: ServiceSettings
    let time: any TimeSource
    let audit: AuditTrail

    /// The flow page that signs people in for OpenID Connect clients.
    public static let signInFlow = "webViewSignIn"
}

extension OIDCService {
    /// OpenID Connect Core §3.1.2: checks the request, then signs the person in again without asking when this
    /// browser's session allows it, else sends the browser to the sign-in page.
    public func authorize(
        _ parameters: [String: String], issuer: String, sessionCookie: String?
    ) async throws
        -> AuthorizeOutcome
    {
        guard let clientID = parameters["client_id"], !clientID.isEmpty,
            let client = try await clientAccess.registeredClient(clientID)
        else { return .refused(.init("invalid_request", "client_id does not name a registered client", redirectable: false)) }
        guard let redirectURI = parameters["redirect_uri"], !redirectURI.isEmpty else {
            return .refused(.init("invalid_request", "redirect_uri is required", redirectable: false))
        }
        guard registered(redirectURI, for: client) else {
            return .refused(
                .init("invalid_request", "redirect_uri is not registered for this client", redirectable: false))
        }
        let request: AuthorizationRequest
        do {
            request = try AuthorizationRequest.read(
                parameters, client: client, redirectURI: redirectURI, issuer: issuer, now: time.now())
        } catch {
            let state = parameters["state"].flatMap { $0.utf8.count <= AuthorizationRequest.maxStateBytes ? $0 : nil }
            return .redirect(Self.errorRedirect(error, redirectURI: redirectURI, state: state, issuer: issuer))
        }
        if !request.forcesLogin, let session = try await liveSession(sessionCookie),
            session.satisfies(maxAge: request.maxAge, now: time.now()),
            let user = try await users.find(id: session.userID), !user.isDisabled
        {
            return .redirect(try await codes.issue(request, to: user, client: client, session: session))
        }
        if request.promptsNone {
            return .redirect(request.errorReply(.init("login_required", "the person must sign in")))
        }
        return .signIn(try await signInPage(for: request, client: client))
    }

    /// An OpenID Connect client's redirect URIs are compared as strings, exactly (RFC 9700 §4.1.3); a path
    /// registered for the service's own pages names the public origin's.
    func registered(_ redirectURI: String, for client: Client) -> Bool {
        client.redirectURIs.contains { entry in
            (entry.hasPrefix("/") ? settings.resolvedPublicOrigin + entry : entry) == redirectURI
        }
    }

    static func errorRedirect(_ error: AuthorizationError, redirectURI: String, state: String?, issuer: String) -> String {
        AuthorizationRequest.redirect(
            to: redirectURI, [("error", error.error), ("error_description", error.description)], state: state,
            issuer: issuer)
    }

    /// The sign-in page for `request`: the client's own page when it names one (`oidc_sign_in_url`, a Janrain page
    /// through the drop-in loader), else the flow page in code mode; in the language asked for, the address hinted.
    func signInPage(for request: AuthorizationRequest, client: Client) async throws -> String {
        var query = [("oidc_request", request.sealed(with: codes.codeKey))]
        // ui_locales: the first language the pages speak (OpenID Connect Core §3.1.2.1).
        if let locale = request.uiLocales.first(where: { catalog.localization.catalog($0) != nil }) {
            query.append(("locale", locale))
        }
        if let hint = request.loginHint { query.append(("login_hint", hint)) }
        let own = try await clientSettings.value(ClientSettingKey.oidcSignInURL, for: client.clientID)
        if let own, ClientPages.problem(withPage: own, of: client) == nil {
            return own + (own.contains("?") ? "&" : "?") + FormBody.encoded(query)
        }
        return settings.resolvedPublicOrigin + "/flows/" + Self.signInFlow + "?"
            + FormBody.encoded([("client_id", request.clientID), ("response_type", "code")] + query)
    }

    /// The browser's session, while it is unexpired and one token chain it started is still active.
    func liveSession(_ cookie: String?) async throws -> BrowserSession? {
        guard let session = BrowserSession.opened(cookie, key: codes.codeKey, now: time.now()) else { return nil }
        let chains = Set(try await grants.grants(inSession: session.id).map(\.chainID))
        guard !chains.isEmpty else { return nil }
        let active = try await tokens.list(TokenFilter(userID: session.userID, state: .active, now: time.now()))
        return active.contains { chains.contains($0.chainID) } ? session : nil
    }
}

extension OIDCService {
    /// The ID token for tokens just issued from a code (with the sign-in's nonce) or a refresh (without), when
    /// their chain is an OpenID Connect grant with the `openid` scope; nil for every other chain.
    public func idToken(for grant: IssuedGrant, fromCode: Bool) async throws -> String? {
        guard grant.scope.split(separator: " ").contains("openid"), let chainID = grant.chainID,
            let stored = try await grants.find(chainID: chainID),
            let client = try await clientAccess.registeredClient(stored.clientID)
        else { return nil }
        let claims = IDTokenClaims.claims(
            of: stored, accessToken: grant.accessToken, includeNonce: fromCode, now: time.now(),
            lifetime: settings.idTokenLifetime)
        return try await signingKeys.sign(claims, algorithm: try await algorithm(for: client))
    }

    /// RS256 unless the client asked for ES256 (its `id_token_signed_response_alg` setting).
    func algorithm(for client: Client) async throws -> JWSAlgorithm {
        try await clientSettings.value(ClientSettingKey.idTokenAlgorithm, for: client.clientID)
            .flatMap(JWSAlgorithm.init(rawValue:)) ?? .rs256
    }

    /// `/oidc/userinfo` (OpenID Connect Core §5.3): the claims the access token's scopes release.
    public func userInfo(accessToken: String?) async throws -> [String: JSONValue] {
        let user: User, record: TokenRecord
        do {
            (user, record) = try await accessTokens.authenticate(accessToken: accessToken)
        } catch let error as CaptureError where error != .storageUnavailable && error != .rateLimited {
            // What the token says of itself is RFC 6750's invalid_token; an outage or throttling stays what it is.
            throw BearerError.invalidToken
        }
        let scopes = record.scope.split(separator: " ").map(String.init)
        guard scopes.contains("openid") else { throw BearerError.insufficientScope }
        return claims.claims(of: user, scopes: scopes)
    }
}
