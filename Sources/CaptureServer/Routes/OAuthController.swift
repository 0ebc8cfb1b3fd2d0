import CaptureCore
import CaptureJSON
import Foundation
import Hummingbird

/// The standard OAuth endpoints (RFC 6749 token, RFC 7009 revocation, RFC 7662 introspection, RFC 8414
/// metadata), errors in RFC 6749 §5.2 shape.
struct OAuthController {
    let settings: ServiceSettings
    let tokens: TokenService
    let oidc: OIDCService

    func addRoutes(to router: some RouterMethods<CaptureRequestContext>) {
        router.post("/oauth/token", use: token)
        router.post("/oauth/revoke", use: revoke)
        router.post("/oauth/introspect", use: introspect)
        router.get("/.well-known/oauth-authorization-server", use: metadata)
    }

    @Sendable func token(_ request: Request, context: CaptureRequestContext) async throws -> Response {
        let parameters = try await APIRequest.parameters(request, limit: settings.maxBodyBytes)
        let (clientID, secret) = try Self.clientCredentials(request, parameters)
        guard let type = parameters["grant_type"], !type.isEmpty else { throw CaptureError.missingArgument("grant_type") }
        switch GrantType(rawValue: type) {
        case .refreshToken:
            let grant = try await tokens.refresh(
                refreshToken: parameters["refresh_token"], clientID: clientID, clientSecret: secret)
            return Reply.ok(try await replyFields(of: grant, fromCode: false))
        case .authorizationCode:
            let grant = try await tokens.exchangeCode(
                parameters["code"], redirectURI: parameters["redirect_uri"], codeVerifier: parameters["code_verifier"],
                clientID: clientID, clientSecret: secret)
            return Reply.ok(try await replyFields(of: grant, fromCode: true))
        case nil:
            throw CaptureError.unsupportedGrantType(type)
        }
    }

    /// RFC 6749 §5.1's members, with the granted `scope` and, for an OpenID Connect grant, its ID token (re-issued
    /// on refresh without the nonce, OpenID Connect Core §12.2).
    func replyFields(of grant: IssuedGrant, fromCode: Bool) async throws -> [String: JSONValue] {
        var fields = grant.replyFields
        if !grant.scope.isEmpty { fields["scope"] = .string(grant.scope) }
        if let idToken = try await oidc.idToken(for: grant, fromCode: fromCode) { fields["id_token"] = .string(idToken) }
        return fields
    }

    @Sendable func revoke(_ request: Request, context: CaptureRequestContext) async throws -> Response {
        let parameters = try await APIRequest.parameters(request, limit: settings.maxBodyBytes)
        let (clientID, secret) = try Self.clientCredentials(request, parameters)
        try await tokens.revoke(token: parameters["token"], clientID: clientID, clientSecret: secret)
        return Reply.json([:])
    }

    @Sendable func introspect(_ request: Request, context: CaptureRequestContext) async throws -> Response {
        let parameters = try await APIRequest.parameters(request, limit: settings.maxBodyBytes)
        let (clientID, secret) = try Self.clientCredentials(request, parameters)
        let introspection = try await tokens.introspect(token: parameters["token"], clientID: clientID, clientSecret: secret)
        return Reply.json(bytes: introspection?.encodedBytes ?? Introspection.inactive.encodedBytes())
    }

    /// RFC 8414: the same document as OpenID Connect discovery's for the service's issuer (RFC 8414 §3 takes its
    /// members), so an OAuth library and an OpenID Connect one find the same endpoints.
    @Sendable func metadata(_ request: Request, context: CaptureRequestContext) async throws -> Response {
        Reply.json(oidc.discovery(.service(origin: settings.resolvedPublicOrigin)))
    }

    /// HTTP Basic (RFC 6749 §2.3.1, form-encoded id and secret) or `client_id` [+ `client_secret`] in the body;
    /// using both is refused.
    static func clientCredentials(_ request: Request, _ parameters: [String: String]) throws -> (String?, String?) {
        guard let header = request.headers.value(.authorization), let basic = try BasicCredentials.parse(header) else {
            return (parameters["client_id"], parameters["client_secret"])
        }
        guard parameters["client_secret"] == nil else { throw CaptureError.invalidClient }
        let (id, secret) = (basic.id, basic.secret)
        if let formID = parameters["client_id"], formID != id { throw CaptureError.invalidClient }
        return (id, secret)
    }
}
