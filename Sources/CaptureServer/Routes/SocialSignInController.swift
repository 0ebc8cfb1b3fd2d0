import CaptureCore
import Foundation
import Hummingbird

/// Social sign-in in redirect mode: `GET /social/{provider}/start` sends the page to the provider, and
/// `GET /social/callback` takes the provider's answer and sends the browser back to the page with a one-time
/// token in the fragment. `POST /oauth/auth_native` and `/oauth/register_native` redeem that token
/// (CaptureAPIController).
struct SocialSignInController {
    let settings: ServiceSettings
    let social: SocialService

    /// The browser's redirects (pages).
    func addRoutes(to router: some RouterMethods<CaptureRequestContext>) {
        router.get("/social/:provider/start", use: start)
        router.get(RouterPath(SocialService.socialCallbackPath), use: callback)
    }

    /// Janrain Engage's endpoint for native provider SDKs (Engage's error shape).
    func addEngageRoutes(to router: some RouterMethods<CaptureRequestContext>) {
        router.post("/signin/oauth_token", use: nativeSignIn)
    }

    /// Janrain Engage's `/signin/oauth_token` (jump.ios, jump.android after a native provider sign-in): `token` and
    /// `provider` (jump.android may name it in the URL as `providername`) in, `{"stat":"ok","token":…}` out.
    @Sendable func nativeSignIn(_ request: Request, context: CaptureRequestContext) async throws -> Response {
        let parameters = try await APIRequest.parameters(
            request, limit: settings.maxBodyBytes, allowedInQuery: ["providername"])
        let token = try await social.signInNatively(
            NativeProviderSignIn(
                provider: parameters["provider"] ?? parameters["providername"], token: parameters["token"],
                tokenSecret: parameters["token_secret"], clientID: parameters["client_id"]))
        return Reply.ok(["token": .string(token)])
    }

    @Sendable func start(_ request: Request, context: CaptureRequestContext) async throws -> Response {
        do {
            let parameters = try QueryFields.read(request)
            let (url, state) = try await social.startSocialLogin(
                SocialStart(parameters: parameters, provider: context.parameters.get("provider") ?? ""))
            var response = Response.redirect(to: url, status: .found)
            // Binds the sign-in to this browser (RFC 6749 §10.12); sent back only to the callback.
            response.headers[.setCookie] = Cookies.setting(
                Self.cookie, state, path: SocialService.socialCallbackPath, maxAge: 600, settings: settings)
            return response
        } catch let error as CaptureError {
            // Nothing is redirected on a refusal: the page's address was not (yet) checked, or was refused.
            if case .unexpected = error { throw error }
            return ErrorPage.response(
                .socialNotStarted, status: .badRequest, messages: context.pageMessages(request), detail: error.errorDescription)
        }
    }

    @Sendable func callback(_ request: Request, context: CaptureRequestContext) async throws -> Response {
        let query = try QueryFields.read(request)
        let outcome = try await social.finishSocialLogin(
            state: query["state"], browserState: Cookies.value(named: Self.cookie, in: request),
            code: query["code"], error: query["error"])
        var response: Response
        switch outcome {
        case .page(let url, let problem):
            if let problem { context.logger.info("social sign-in failed", metadata: ["reason": "\(problem)"]) }
            response = Response.redirect(to: url, status: .seeOther)
        case .dead(let reason):
            let kind: ErrorPage.Kind =
                switch reason {
                case .expired: .socialExpired
                case .refused: .socialRefused
                case .otherBrowser: .socialOtherBrowser
                }
            response = ErrorPage.response(kind, status: .badRequest, messages: context.pageMessages(request))
        }
        response.headers[.setCookie] = Cookies.setting(
            Self.cookie, "", path: SocialService.socialCallbackPath, maxAge: 0, settings: settings)
        return response
    }

    static let cookie = "capture_social_state"

}
