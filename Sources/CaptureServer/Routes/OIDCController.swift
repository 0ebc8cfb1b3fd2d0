import CaptureCore
import CaptureJSON
import Foundation
import Hummingbird

/// The OpenID Connect provider's endpoints (docs/oidc.md): discovery, keys, the authorization endpoint in front of the
/// flow pages, userinfo and logout — at the service's own paths and, with `hostedLoginCustomerId`, at Akamai Hosted
/// Login's. The token, revocation and introspection endpoints are `OAuthController`'s, under both paths too.
struct OIDCController {
    let oidc: OIDCService
    let signingKeys: SigningKeys
    let settings: ServiceSettings
    let oauth: OAuthController

    /// Every issuer's routes. Errors on the authorization and logout endpoints are pages (the person is there);
    /// userinfo's are RFC 6750's; discovery and keys have none of their own.
    func addRoutes(to router: some RouterMethods<CaptureRequestContext>) {
        for endpoints in oidc.endpointSets {
            func path(_ url: String) -> RouterPath {
                RouterPath(String(url.dropFirst(settings.resolvedPublicOrigin.count)))
            }
            let issuerPath = String(endpoints.issuer.dropFirst(settings.resolvedPublicOrigin.count))
            router.get(RouterPath(issuerPath + "/.well-known/openid-configuration")) { _, _ in
                Reply.cacheable(oidc.discovery(endpoints), maxAge: 300)
            }
            router.get(path(endpoints.jwks), use: jwks)
            router.get(path(endpoints.authorization)) { request, context in
                try await authorize(request, context: context, issuer: endpoints.issuer)
            }
            router.post(path(endpoints.authorization)) { request, context in
                try await authorize(request, context: context, issuer: endpoints.issuer)
            }
            router.get(path(endpoints.userinfo), use: userinfo)
            router.post(path(endpoints.userinfo), use: userinfo)
            router.get(path(endpoints.endSession), use: logout)
            router.post(path(endpoints.endSession), use: logout)
            guard endpoints.issuer != settings.resolvedPublicOrigin else { continue }
            // Hosted Login's own addresses for the OAuth endpoints, and its second userinfo path.
            router.post(path(endpoints.token), use: oauth.token)
            router.post(path(endpoints.revocation), use: oauth.revoke)
            router.post(path(endpoints.introspection), use: oauth.introspect)
            if let customer = settings.openIDConnect.hostedLoginCustomerId {
                router.get(RouterPath("/" + customer + "/oidc/userinfo"), use: userinfo)
                router.post(RouterPath("/" + customer + "/oidc/userinfo"), use: userinfo)
            }
        }
    }

    @Sendable func jwks(_ request: Request, context: CaptureRequestContext) async throws -> Response {
        Reply.cacheable(try await signingKeys.document(), maxAge: 300)
    }

    /// OpenID Connect Core §3.1.2.1: GET or a form POST.
    func authorize(_ request: Request, context: CaptureRequestContext, issuer: String) async throws -> Response {
        let parameters = try await Self.parameters(request, limit: settings.maxBodyBytes)
        let outcome = try await oidc.authorize(
            parameters, issuer: issuer, sessionCookie: Cookies.value(named: BrowserSession.cookieName, in: request))
        switch outcome {
        case .refused(let error):
            return ErrorPage.response(
                .invalidLink, status: .badRequest, messages: context.pageMessages(request),
                detail: "\(error.error): \(error.description)")
        case .redirect(let url), .signIn(let url):
            return Response.redirect(to: url, status: .found)
        }
    }

    /// OpenID Connect Core §5.3: the access token as a Bearer header (or a form POST's `access_token`).
    @Sendable func userinfo(_ request: Request, context: CaptureRequestContext) async throws -> Response {
        let token: String?
        if request.method == .post {
            let parameters = try await APIRequest.parameters(request, limit: settings.maxBodyBytes)
            token = APIRequest.accessToken(request, parameters: parameters)
        } else {
            token = APIRequest.accessToken(request, parameters: [:])
        }
        do {
            var response = Reply.json(.object(try await oidc.userInfo(accessToken: token)))
            response.headers[.cacheControl] = "no-store"
            return response
        } catch let error as BearerError {
            var response = Reply.json(
                ["error": .string(error.code), "error_description": .string(error.description)],
                status: .init(code: error.status))
            response.headers[.wwwAuthenticate] =
                "Bearer realm=\"capture-bridge\", error=\"\(error.code)\", error_description=\"\(error.description)\""
            return response
        }
    }

    /// RP-Initiated Logout 1.0: the browser's session cookie goes whatever the outcome.
    @Sendable func logout(_ request: Request, context: CaptureRequestContext) async throws -> Response {
        let parameters = try await Self.parameters(request, limit: settings.maxBodyBytes)
        let outcome = try await oidc.logout(
            parameters, sessionCookie: Cookies.value(named: BrowserSession.cookieName, in: request))
        var response: Response
        switch outcome {
        case .redirect(let url):
            response = Response.redirect(to: url, status: .found)
        case .signedOut:
            response = ErrorPage.response(.signedOut, status: .ok, messages: context.pageMessages(request))
        case .refused(let error):
            response = ErrorPage.response(
                .invalidLink, status: .badRequest, messages: context.pageMessages(request),
                detail: "\(error.error): \(error.description)")
        }
        response.headers[.setCookie] = Self.sessionCookie("", maxAge: 0, settings: settings)
        return response
    }

    static func sessionCookie(_ value: String, maxAge: Int, settings: ServiceSettings) -> String {
        Cookies.setting(BrowserSession.cookieName, value, path: "/", maxAge: maxAge, settings: settings)
    }

    /// A browser's request: the query (GET), or a form body (POST) — OpenID Connect's parameters carry no secret.
    static func parameters(_ request: Request, limit: Int) async throws -> [String: String] {
        if request.method == .post { return try await APIRequest.parameters(request, limit: limit) }
        return try FormParser.parse(Array((request.uri.query ?? "").utf8))
    }
}
