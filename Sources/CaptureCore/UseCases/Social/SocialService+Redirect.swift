import Crypto
import Foundation

/// Where a page asks to start a social sign-in, and where the provider sends the user back.
public struct SocialStart: Sendable, Equatable {
    public var provider: String
    public var clientID: String?
    public var flow: String?
    public var locale: String?
    public var responseType: String?
    /// The page to come back to; must be on the client's allow-list.
    public var redirectURI: String?
    /// System-browser hand-off: the app's return providerLinks.address (a private-use scheme such as `com.example.app:/social`,
    /// or an https app link) the provider's answer goes to instead of the page; on the client's allow-list.
    public var appReturnURI: String?
    /// S256 of a verifier the starter keeps (the page in `sessionStorage`, a host its own): redeeming the one-time
    /// token needs the verifier (InitiatorBinding).
    public var codeChallenge: String?
    public var codeChallengeMethod: String?

    public init(parameters: [String: String], provider: String) {
        self.provider = provider
        clientID = parameters["client_id"]
        flow = parameters["flow"]
        locale = parameters["locale"]
        responseType = parameters["response_type"]
        redirectURI = parameters["redirect_uri"]
        appReturnURI = parameters["app_return_uri"].flatMap { $0.isEmpty ? nil : $0 }
        codeChallenge = parameters["code_challenge"]
        codeChallengeMethod = parameters["code_challenge_method"]
    }
}

/// Why a provider's answer ends on the service's own page: the sign-in expired or was already finished, the
/// provider refused it and the browser carried no sign-in to go back to, or the browser never started it.
public enum SocialDeadEnd: String, Sendable, Equatable {
    case expired, refused
    /// The browser carries no state cookie: it did not start this sign-in (or refuses cookies).
    case otherBrowser
}

/// How the provider's answer ends: back on the page with a fragment (a one-time token, or an error code the
/// page explains), or — when no page can be trusted with it (unknown or replayed state) — a page of our own.
public enum SocialReturn: Sendable, Equatable {
    /// Back to the page; `problem` (for the log) when the fragment carries an error.
    case page(String, problem: String?)
    case dead(SocialDeadEnd)
}

extension SocialService {
    /// The path the provider sends users back to (registered with the provider as the redirect URI).
    public static let socialCallbackPath = "/social/callback"

    /// Checks client, flow, response type and the page's address, remembers the sign-in under a fresh `state`,
    /// and returns the provider's authorization URL (code flow with PKCE S256 and, for OpenID Connect, a nonce).
    /// Returns the provider's URL and the state, which the caller also leaves in the browser (a cookie) so the
    /// answer can be matched to the browser that asked.
    public func startSocialLogin(_ start: SocialStart) async throws -> (url: String, state: String) {
        guard let provider = social.provider(named: start.provider) else {
            throw CaptureError.recordNotFound("social provider '\(start.provider)'")
        }
        let client = try await clientAccess.authenticateClient(id: start.clientID, secret: nil)
        guard let flowName = start.flow, let flow = catalog.flow(named: flowName) else {
            throw CaptureError.invalidArgument("flow", "unknown flow '\(start.flow ?? "")'")
        }
        guard let responseType = ResponseType(parameter: start.responseType, fallback: flow.responseType) else {
            throw CaptureError.invalidArgument("response_type", "must be token, code or code_and_token")
        }
        guard client.responseTypes.contains(responseType) else {
            throw CaptureError.invalidArgument("response_type", "'\(responseType.rawValue)' is not allowed for this client")
        }
        // The hand-off sends the answer to the app (which gives the token to its page); otherwise to the page.
        guard let page = start.appReturnURI ?? start.redirectURI, !page.isEmpty else {
            throw CaptureError.missingArgument("redirect_uri")
        }
        try clientAccess.checkRedirect(page, for: client)
        let challenge = try InitiatorBinding.challenge(start.codeChallenge, method: start.codeChallengeMethod)
        let state = minter.mint()
        let nonce = minter.mint()
        let verifier = minter.mint()
        let returnURL = String(page.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0])
        var login = SocialLogin(
            stateHash: TokenMinter.hash(state), provider: provider.name, clientID: client.clientID, flow: flow.name,
            locale: start.locale ?? flow.locale, responseType: responseType, returnURL: returnURL, nonce: nonce,
            codeVerifier: verifier, createdAt: time.now())
        login.initiatorChallenge = challenge
        try await socialLogins.insert(login)
        var query: [(String, String)] = [
            ("response_type", "code"), ("client_id", provider.settings.clientId), ("redirect_uri", settings.socialCallbackURL),
            ("scope", provider.scopes.joined(separator: " ")), ("state", state),
            ("code_challenge", Data(SHA256.hash(data: Data(verifier.utf8))).base64URLEncoded()),
            ("code_challenge_method", "S256"),
        ]
        if provider.isOpenIDConnect { query.append(("nonce", nonce)) }
        let separator = provider.authorizationEndpoint.contains("?") ? "&" : "?"
        let url =
            provider.authorizationEndpoint + separator
            + query.map { "\($0.0)=\(FormBody.encode($0.1))" }.joined(separator: "&")
        return (url, state)
    }

    /// The provider's answer (`code` and `state`, or `error`): spends the state, exchanges the code server to
    /// server, checks who the user is there, and sends the browser back to the page with a one-time token.
    /// `browserState` is the state the start left in this browser's cookie, and the answer belongs to this browser
    /// only through it (RFC 6749 §10.12, docs/contract.md §15): without the cookie nothing is exchanged or spent, and the answer
    /// ends on our own page (a browser that never started a sign-in has no page to go back to). An answer without a
    /// state (some providers drop it from error replies) is matched by the cookie alone. An answer whose state
    /// differs (login CSRF, or a mixed-up answer) is never exchanged: the sign-in the cookie names is spent and ends
    /// on its own page (checked against the allow-list at its start, so no open redirect) with `state_mismatch`, so
    /// a web view's host hears about it instead of being left on our page.
    public func finishSocialLogin(
        state: String?, browserState: String?, code: String?, error: String?
    ) async throws
        -> SocialReturn
    {
        let dead = SocialReturn.dead(error == nil ? .expired : .refused)
        let given = state.flatMap { $0.isEmpty ? nil : $0 }
        let kept = browserState.flatMap { $0.isEmpty ? nil : $0 }
        guard let state = kept else { return .dead(.otherBrowser) }
        let mismatch = given != nil && given != kept
        let now = time.now()
        // Spent at once, whatever happens next: a state works once.
        let login = try await socialLogins.use(stateHash: TokenMinter.hash(state)) {
            found -> (SocialLogin?, SocialLogin?) in
            guard var found, found.expiresAt > now, found.subject == nil, found.usedAt == nil else { return (nil, nil) }
            // Strictly in the past: a stored time keeps only milliseconds, and "now" must not round up into a
            // second use within the same instant.
            found.expiresAt = now.addingTimeInterval(-1)
            return (found, found)
        }
        guard var login, let provider = social.provider(named: login.provider) else { return dead }
        func back(_ values: [(String, String)], problem: String? = nil) -> SocialReturn {
            .page(
                login.returnURL + "#"
                    + (values + [("provider", provider.name)])
                    .map { "\($0.0)=\(FormBody.encode($0.1))" }.joined(separator: "&"),
                problem: problem)
        }
        if mismatch {
            return back([("capture_social_error", "state_mismatch")], problem: "the answer's state is not this browser's")
        }
        if let error, !error.isEmpty {
            let code = error == "access_denied" ? "cancelled" : "provider_error"
            return back([("capture_social_error", code)], problem: "the provider answered \(Self.loggable(providerError: error))")
        }
        guard let code, !code.isEmpty else {
            return back([("capture_social_error", "provider_error")], problem: "the provider sent no code")
        }
        let identity: ProviderIdentity
        do {
            identity = try await providerIdentities.identify(code: code, login: login, provider: provider)
        } catch let failure as SocialFailure {
            return back([("capture_social_error", failure.code)], problem: failure.reason)
        }
        let token = minter.mint()
        login.subject = identity.subject
        login.claims = identity.claims
        login.providerToken = identity.refreshToken.map { codeKey.seal(Array($0.utf8)) }
        login.tokenHash = TokenMinter.hash(token)
        login.tokenExpiresAt = now.addingTimeInterval(SocialLogin.handOffLifetime)
        let completed = login
        try await socialLogins.use(stateHash: login.stateHash) { _ in (completed, ()) }
        return back([("capture_social_token", token)])
    }

    /// A provider's `error` as the log may show it: RFC 6749 §4.1.2.1's characters (printable ASCII without `"` and
    /// `\`), at most 64 of them. Anyone can put anything in the callback's URL; a newline must not forge a log line.
    public static func loggable(providerError error: String) -> String {
        let allowed = error.unicodeScalars.allSatisfy { (0x20...0x7E).contains($0.value) && $0 != "\"" && $0 != "\\" }
        return allowed && error.count <= 64 ? error : "(an error code that is not RFC 6749's, \(error.utf8.count) bytes)"
    }
}
