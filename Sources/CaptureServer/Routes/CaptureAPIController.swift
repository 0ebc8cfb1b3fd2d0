import CaptureCore
import CaptureJSON
import Foundation
import Hummingbird

/// Janrain's Capture API for native SDKs and the widget: decode, call one use case, encode.
struct CaptureAPIController {
    let signIn: SignInService
    let social: SocialService
    let settings: ServiceSettings
    let proxies: TrustedProxies
    let profile: ProfileService
    let privacy: PrivacyService
    let tokens: TokenService

    func addRoutes(to router: some RouterMethods<CaptureRequestContext>) {
        router.post(RouterPath(FormEndpoint.signIn.path), use: authenticating(signIn.signIn))
        router.post(RouterPath(FormEndpoint.register.path), use: authenticating(signIn.register))
        router.post(RouterPath(FormEndpoint.updateProfile.path), use: updateProfile)
        router.post(RouterPath(FormEndpoint.deactivateAccount.path), use: deactivateAccount)
        // Social: `token` is the one-time token a social sign-in handed the page.
        router.post(
            "/oauth/auth_native",
            use: authenticating(social.signInWithProvider, allowedInQuery: APIRequest.authNativeQueryParameters))
        router.post(RouterPath(FormEndpoint.registerWithProvider.path), use: authenticating(social.registerWithProvider))
        router.post("/oauth/link_account_native", use: linkAccount)
        router.post("/oauth/unlink_account_native", use: unlinkAccount)
        router.post("/oauth/refresh_access_token", use: refreshAccessToken)
    }

    private var limit: Int { settings.maxBodyBytes }

    /// Sign-in and registration, traditional or social: a form submission in, tokens or a code out.
    func authenticating(
        _ useCase: @escaping @Sendable (FlowRequest) async throws -> AuthResult, allowedInQuery: Set<String> = []
    ) -> @Sendable (Request, CaptureRequestContext) async throws -> Response {
        { request, context in
            let parameters = try await APIRequest.parameters(request, limit: limit, allowedInQuery: allowedInQuery)
            let result = try await useCase(
                APIRequest.flowRequest(parameters, request, context: context, proxies: proxies))
            return try await Self.authReply(result, profile: profile, settings: settings)
        }
    }

    /// Janrain's account linking: the reply carries the record, whose `profiles` list the linked accounts.
    @Sendable func linkAccount(_ request: Request, context: CaptureRequestContext) async throws -> Response {
        let parameters = try await APIRequest.parameters(request, limit: limit)
        var flowRequest = APIRequest.flowRequest(parameters, request, context: context, proxies: proxies)
        flowRequest.accessToken = APIRequest.accessToken(request, parameters: parameters)
        let user = try await social.linkAccount(flowRequest)
        return Reply.ok(["capture_user": try await profile.record(of: user)])
    }

    @Sendable func unlinkAccount(_ request: Request, context: CaptureRequestContext) async throws -> Response {
        let parameters = try await APIRequest.parameters(request, limit: limit)
        try Self.refuseUnknown(
            parameters,
            allowed: StepUpProof.parameters.union([
                "client_id", "locale", "identifier_to_remove", "access_token", "flow", "flow_version", "redirect_uri",
            ]))
        let user = try await social.unlinkAccount(
            accessToken: APIRequest.accessToken(request, parameters: parameters), identifier: parameters["identifier_to_remove"],
            proof: StepUpProof(
                parameters, remoteAddress: APIRequest.origin(request, context: context, proxies: proxies).address))
        return Reply.ok(["capture_user": try await profile.record(of: user)])
    }

    @Sendable func updateProfile(_ request: Request, context: CaptureRequestContext) async throws -> Response {
        let user = try await profile.updateProfile(try await tokenFlowRequest(request, context: context))
        return Reply.ok(["capture_user": try await profile.record(of: user)])
    }

    /// A form sent with an access token: no cross-origin check, only the address for the current-password limit.
    private func tokenFlowRequest(_ request: Request, context: CaptureRequestContext) async throws -> FlowRequest {
        let parameters = try await APIRequest.parameters(request, limit: limit)
        var flowRequest = FlowRequest(
            parameters: parameters, remoteAddress: APIRequest.origin(request, context: context, proxies: proxies).address)
        flowRequest.accessToken = APIRequest.accessToken(request, parameters: parameters)
        return flowRequest
    }

    /// `deactivateAccountForm`: the account is deactivated now and erased on `erase_at`.
    @Sendable func deactivateAccount(_ request: Request, context: CaptureRequestContext) async throws -> Response {
        let erasure = try await privacy.deactivateAccount(try await tokenFlowRequest(request, context: context))
        return Reply.ok(["erase_at": .string(CaptureDate.format(erasure))])
    }

    /// Janrain's signed refresh: a new access token for one whose refresh_secret signature checks out.
    @Sendable func refreshAccessToken(_ request: Request, context: CaptureRequestContext) async throws -> Response {
        let parameters = try await APIRequest.parameters(request, limit: limit)
        // jump.ios always adds flow and flow_version: accepted and not needed (the token names its session).
        try Self.refuseUnknown(
            parameters, allowed: ["access_token", "date", "signature", "client_id", "locale", "flow", "flow_version"])
        let refreshed = try await tokens.refreshSigned(
            accessToken: parameters["access_token"], date: parameters["date"], signature: parameters["signature"],
            clientID: parameters["client_id"])
        return Reply.ok([
            "access_token": .string(refreshed.accessToken), "expires_in": .int(Int64(refreshed.expiresIn)),
            "capture_user": try await profile.record(of: refreshed.user),
        ])
    }

    /// Refuses a parameter the endpoint does not take, naming the first one in order so that the same request is
    /// always answered the same way; sorting happens only for a request that is refused.
    static func refuseUnknown(_ parameters: [String: String], allowed: Set<String>) throws {
        if parameters.keys.allSatisfy(allowed.contains) { return }
        if let unknown = parameters.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw CaptureError.invalidArgument(unknown, "is not a parameter of this endpoint")
        }
    }

    /// The reply to a sign-in or registration: tokens, a one-time code, or both; for an OpenID Connect client's
    /// sign-in, where the page sends the browser (`redirect_to`) and the browser session's cookie.
    static func authReply(_ result: AuthResult, profile: ProfileService, settings: ServiceSettings) async throws -> Response {
        var response = Reply.ok(try await authFields(result, profile: profile))
        if let session = result.browserSession {
            response.headers[.setCookie] = OIDCController.sessionCookie(
                session, maxAge: Int(settings.openIDConnect.sessionLifetime), settings: settings)
        }
        return response
    }

    static func authFields(_ result: AuthResult, profile: ProfileService) async throws -> [String: JSONValue] {
        var fields: [String: JSONValue] = [
            "is_new": .bool(result.isNew), "capture_user": try await profile.record(of: result.user),
        ]
        if let redirect = result.authorizationRedirect { fields["redirect_to"] = .string(redirect) }
        if let grant = result.grant { fields.merge(grant.replyFields) { _, new in new } }
        if let code = result.authorizationCode { fields["authorization_code"] = .string(code) }
        if let signOut = result.signOutToken { fields["sign_out_token"] = .string(signOut) }
        if let device = result.deviceToken { fields["device_token"] = .string(device) }
        return fields
    }
}
