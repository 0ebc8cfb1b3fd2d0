import CaptureJSON
import Foundation

/// Why `/oidc/authorize` refuses a request (OpenID Connect Core §3.1.2.6, RFC 6749 §4.1.2.1). Before the client and
/// its redirect URI are known to be good, nothing may be sent to that URI (`redirectable == false`: an error page);
/// after, the error goes back to the client with its `state`.
public struct AuthorizationError: Error, Equatable, Sendable {
    public var error: String
    public var description: String
    public var redirectable: Bool

    public init(_ error: String, _ description: String, redirectable: Bool = true) {
        self.error = error
        self.description = description
        self.redirectable = redirectable
    }

    static func invalid(_ description: String) -> AuthorizationError { .init("invalid_request", description) }
}

/// What a person's browser takes through the sign-in pages on behalf of an OpenID Connect client: an authorization
/// request that `/oidc/authorize` checked. The pages carry it sealed (`sealed(with:)`) under the code key, so nothing
/// of it can be changed on the way and every instance can open it; nothing is stored until the code is issued.
public struct AuthorizationRequest: Sendable, Equatable, Codable {
    public var clientID: String
    /// Exactly as the client sent it and registered it: the code goes there, and the token request must repeat it.
    public var redirectURI: String
    public var scopes: [String]
    public var state: String?
    public var nonce: String?
    /// RFC 7636 S256 challenge; required of public clients.
    public var codeChallenge: String?
    /// `max_age` in seconds: an older sign-in is not enough.
    public var maxAge: Int?
    public var prompt: [String]
    public var loginHint: String?
    public var uiLocales: [String]
    public var acrValues: [String]
    /// The issuer the client asked (the public origin, or Hosted Login's `{origin}/{customer}/login`): its ID tokens
    /// and replies name it.
    public var issuer: String
    public var issuedAt: Date

    /// How long the pages may take between the client's request and the sign-in (registration included).
    public static let lifetime: TimeInterval = 30 * 60
    /// Bounds on what a client may make the browser carry.
    static let maxStateBytes = 1_024
    static let maxNonceBytes = 512
    static let maxHintBytes = 254
    static let maxClaimsBytes = 2_048

    public var wantsIDToken: Bool { scopes.contains("openid") }
    public var promptsNone: Bool { prompt.contains("none") }
    public var forcesLogin: Bool { prompt.contains("login") }

    /// The parameters of a request whose `client` and `redirectURI` are already checked, read as OpenID Connect Core
    /// §3.1.2.1 asks; refusals are redirectable.
    public static func read(
        _ parameters: [String: String], client: Client, redirectURI: String, issuer: String, now: Date
    ) throws(AuthorizationError) -> AuthorizationRequest {
        func text(_ name: String) -> String? { parameters[name].flatMap { $0.isEmpty ? nil : $0 } }
        if text("request") != nil { throw .init("request_not_supported", "request objects are not supported") }
        if text("request_uri") != nil { throw .init("request_uri_not_supported", "request_uri is not supported") }
        if text("registration") != nil { throw .init("registration_not_supported", "registration is not supported") }
        guard let responseType = text("response_type") else { throw .invalid("response_type is required") }
        guard responseType == "code" else {
            throw .init("unsupported_response_type", "only response_type=code is supported")
        }
        guard client.responseTypes.contains(.code) else {
            throw .init("unauthorized_client", "this client may not use the authorization code flow")
        }
        if let mode = text("response_mode"), mode != "query" {
            throw .invalid("only response_mode=query is supported")
        }
        if let claims = text("claims"), claims.utf8.count > maxClaimsBytes {
            throw .invalid("claims is too large")
        }
        let scopes = (text("scope") ?? "").split(separator: " ").map(String.init)
        let prompt = (text("prompt") ?? "").split(separator: " ").map(String.init)
        guard prompt.allSatisfy(["none", "login", "consent", "select_account"].contains) else {
            throw .invalid("prompt must be none, login, consent or select_account")
        }
        if prompt.contains("none") && prompt.count > 1 { throw .invalid("prompt=none cannot be combined") }
        var maxAge: Int?
        if let value = text("max_age") {
            guard let seconds = Int(value), seconds >= 0, value.utf8.count <= 10 else {
                throw .invalid("max_age must be a number of seconds")
            }
            maxAge = seconds
        }
        let state = text("state"), nonce = text("nonce"), hint = text("login_hint")
        if (state?.utf8.count ?? 0) > maxStateBytes { throw .invalid("state is too long") }
        if (nonce?.utf8.count ?? 0) > maxNonceBytes { throw .invalid("nonce is too long") }
        if (hint?.utf8.count ?? 0) > maxHintBytes { throw .invalid("login_hint is too long") }
        let challenge: String?
        do {
            challenge = try PKCE.checkedChallenge(
                text("code_challenge"), method: text("code_challenge_method"), required: !client.isConfidential)
        } catch {
            throw .invalid("a PKCE code_challenge with code_challenge_method=S256 is required")
        }
        let locales = (text("ui_locales") ?? "").split(separator: " ").prefix(8).map(String.init)
            .filter(Localization.isLanguageTag)
        let acr = (text("acr_values") ?? "").split(separator: " ").prefix(8).map(String.init)
        return AuthorizationRequest(
            clientID: client.clientID, redirectURI: redirectURI, scopes: scopes, state: state, nonce: nonce,
            codeChallenge: challenge, maxAge: maxAge, prompt: prompt, loginHint: hint, uiLocales: locales,
            acrValues: acr, issuer: issuer, issuedAt: now)
    }

    /// Where the client's browser goes with the outcome: the redirect URI with `code` or `error`, `state` and `iss`
    /// (RFC 9207, against mix-up) added to its query.
    public func reply(_ fields: [(String, String)]) -> String {
        Self.redirect(to: redirectURI, fields, state: state, issuer: issuer)
    }

    static func redirect(to redirectURI: String, _ fields: [(String, String)], state: String?, issuer: String) -> String {
        var pairs = fields
        if let state { pairs.append(("state", state)) }
        pairs.append(("iss", issuer))
        return redirectURI + (redirectURI.contains("?") ? "&" : "?") + FormBody.encoded(pairs)
    }

    public func errorReply(_ error: AuthorizationError) -> String {
        reply([("error", error.error), ("error_description", error.description)])
    }

    // MARK: Carried by the pages

    static let sealingPurpose = "oidc authorization request"

    public func sealed(with key: CodeKey) -> String {
        key.seal(Array((try? JSONEncoder().encode(self)) ?? Data()), purpose: Self.sealingPurpose)
    }

    /// The request the pages carried, if it was sealed here, is for `clientID` and is not older than `lifetime`.
    public static func opened(_ sealed: String, key: CodeKey, clientID: String?, now: Date) -> AuthorizationRequest? {
        guard sealed.utf8.count <= 8_192, let bytes = key.unseal(sealed, purpose: sealingPurpose),
            let request = try? JSONDecoder().decode(AuthorizationRequest.self, from: Data(bytes)),
            clientID == nil || request.clientID == clientID,
            now >= request.issuedAt - 60, now < request.issuedAt + lifetime
        else { return nil }
        return request
    }
}
