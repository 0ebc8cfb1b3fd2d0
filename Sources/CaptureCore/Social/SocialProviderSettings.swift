import Foundation

/// A social sign-in provider as `service.json`'s `socialProviders` lists it: an OpenID Connect provider by its
/// `issuer` (discovery at `<issuer>/.well-known/openid-configuration`), or OAuth 2.0 endpoints given explicitly
/// with a userinfo URL. The client secret never lives in the file: it is read from `clientSecretEnvironment`
/// (default `CAPTURE_PROVIDER_<NAME>_SECRET`).
public struct SocialProviderSettings: Sendable, Equatable, Codable {
    /// Used in URLs and in the record's `profiles` (`[a-z0-9-]`, like `google`).
    public var name: String
    public var displayName: String
    public var issuer: String?
    public var authorizationEndpoint: String?
    public var tokenEndpoint: String?
    public var userinfoEndpoint: String?
    /// Where the provider revokes tokens (RFC 7009); unset: discovery's `revocation_endpoint`, if any. With one, the
    /// provider's refresh token is kept (sealed) and revoked when the person deletes their account.
    public var revocationEndpoint: String?
    public var clientId: String
    public var clientSecretEnvironment: String?
    public var scopes: [String]?
    /// An image under WebFlows/assets (a path) shown on the button; the name alone otherwise.
    public var icon: String?
    /// Record attribute (schema path) ← claim name; the defaults map OpenID Connect's standard claims.
    public var claims: [String: String]?
    /// Plain `http://` endpoints, allowed only on loopback (a provider on the same machine, tests).
    public var allowPlainHTTP: Bool?
    /// How the client authenticates at the token endpoint: `client_secret_basic` or `client_secret_post`. Unset: what
    /// discovery's `token_endpoint_auth_methods_supported` allows (basic first, its default), else basic.
    public var tokenEndpointAuthMethod: String?
    /// Native sign-in (`/signin/oauth_token`): the provider client ids of apps that sign in with the provider's own
    /// SDK, whose ID tokens are accepted besides those issued to `clientId`.
    public var nativeClientIds: [String]?
    /// Native sign-in with an access token (checked at userinfo) instead of an ID token. Off by default: an access
    /// token does not say which app it was issued to, so any app the user signed in to could present it.
    public var acceptAccessTokens: Bool?
    /// Count the provider's address as proven without `email_verified: true` (Keycloak's "Trust Email"): only for an
    /// issuer the operator knows verifies every address it issues (ProviderAddress).
    public var trustEmail: Bool?

    public static let clientAuthenticationMethods = ["client_secret_basic", "client_secret_post"]

    public init(
        name: String, displayName: String, issuer: String? = nil, authorizationEndpoint: String? = nil,
        tokenEndpoint: String? = nil, userinfoEndpoint: String? = nil, clientId: String,
        clientSecretEnvironment: String? = nil, scopes: [String]? = nil, icon: String? = nil,
        claims: [String: String]? = nil, allowPlainHTTP: Bool? = nil, tokenEndpointAuthMethod: String? = nil
    ) {
        self.name = name
        self.displayName = displayName
        self.issuer = issuer
        self.authorizationEndpoint = authorizationEndpoint
        self.tokenEndpoint = tokenEndpoint
        self.userinfoEndpoint = userinfoEndpoint
        self.clientId = clientId
        self.clientSecretEnvironment = clientSecretEnvironment
        self.scopes = scopes
        self.icon = icon
        self.claims = claims
        self.allowPlainHTTP = allowPlainHTTP
        self.tokenEndpointAuthMethod = tokenEndpointAuthMethod
    }

    /// Standard claims onto the demo schema's attributes.
    public static let defaultClaims = [
        "email": "email", "givenName": "given_name", "familyName": "family_name", "displayName": "name",
        "middleName": "middle_name", "gender": "gender", "birthday": "birthdate",
    ]

    public var secretEnvironmentName: String {
        clientSecretEnvironment ?? "CAPTURE_PROVIDER_\(name.uppercased().replacingOccurrences(of: "-", with: "_"))_SECRET"
    }

    public var isOpenIDConnect: Bool { issuer != nil }

    /// The claim that holds the user's address: what `claims` maps onto `email`.
    var emailClaim: String { (claims ?? Self.defaultClaims)["email"] ?? "email" }

    func problem() -> (key: String, problem: String)? {
        if name.isEmpty || name.count > 32
            || !name.utf8.allSatisfy({ ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 45 })
        {
            return ("name", "must be 1-32 characters of a-z, 0-9 and '-'")
        }
        if displayName.isEmpty { return ("displayName", "must not be empty") }
        if clientId.isEmpty { return ("clientId", "must not be empty") }
        let endpoints = [authorizationEndpoint, tokenEndpoint, userinfoEndpoint]
        if issuer == nil && endpoints.contains(where: { $0 == nil }) {
            return ("issuer", "give an OpenID Connect issuer, or authorizationEndpoint, tokenEndpoint and userinfoEndpoint")
        }
        let urls = ([issuer, revocationEndpoint] + endpoints).compactMap { $0 }
        for url in urls where !Self.isAllowedURL(url, plainHTTP: allowPlainHTTP == true) {
            return ("issuer", "'\(url)' must be an https URL (http only on loopback with allowPlainHTTP)")
        }
        if let method = tokenEndpointAuthMethod, !Self.clientAuthenticationMethods.contains(method) {
            return ("tokenEndpointAuthMethod", "must be one of \(Self.clientAuthenticationMethods.joined(separator: ", "))")
        }
        if let scopes, scopes.contains(where: { $0.isEmpty || $0.contains(" ") }) {
            return ("scopes", "each scope is one word")
        }
        return nil
    }

    /// https anywhere; http only to loopback and only when the provider allows it.
    static func isAllowedURL(_ text: String, plainHTTP: Bool) -> Bool {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty,
            url.user == nil, url.fragment == nil
        else { return false }
        if scheme == "https" { return true }
        return scheme == "http" && plainHTTP && ["127.0.0.1", "localhost", "::1", "[::1]"].contains(host)
    }
}
