import CaptureCore
import CaptureJSON
import Foundation
import Hummingbird

/// Passkeys and second factors in the Capture API's style: options and verification for adding a passkey and
/// signing in with one, the account's factors, an authenticator app's set-up, and the second step of a password
/// sign-in. Decode, call one use case, encode.
struct FactorsController {
    let proxies: TrustedProxies
    let settings: ServiceSettings
    let factors: FactorService
    let signIn: SignInService
    let profile: ProfileService

    func addRoutes(to router: some RouterMethods<CaptureRequestContext>) {
        router.post("/passkey/registration_options", use: registrationOptions)
        router.post("/passkey/register", use: register)
        router.post("/passkey/sign_in_options", use: signInOptions)
        router.post("/passkey/remove", use: remove)
        router.post("/oauth/auth_native_passkey", use: signIn)
        router.post("/factors", use: factors)
        router.post("/second_factor/setup", use: setup)
        router.post("/second_factor/confirm", use: confirm)
        router.post("/second_factor/disable", use: disable)
        router.post("/oauth/auth_native_second_factor", use: secondFactor)
    }

    /// The parameters every call here takes besides its own: the client, page language and flow pages send.
    static let common: Set<String> = ["client_id", "locale", "flow", "flow_version"]

    private func parameters(_ request: Request, _ own: Set<String>) async throws -> [String: String] {
        try await Self.parameters(request, own, limit: settings.maxBodyBytes)
    }

    /// What a sensitive change's call brings to stand in for a recent sign-in, and the address it came from.
    private func stepUp(_ parameters: [String: String], _ request: Request, context: CaptureRequestContext) -> StepUpProof {
        StepUpProof(parameters, remoteAddress: APIRequest.origin(request, context: context, proxies: proxies).address)
    }

    /// A call's form parameters: `common` and its `own`; any other is refused.
    static func parameters(_ request: Request, _ own: Set<String>, limit: Int) async throws -> [String: String] {
        let parameters = try await APIRequest.parameters(request, limit: limit)
        try CaptureAPIController.refuseUnknown(parameters, allowed: common.union(own))
        return parameters
    }

    @Sendable func registrationOptions(_ request: Request, context: CaptureRequestContext) async throws -> Response {
        let parameters = try await parameters(request, StepUpProof.parameters.union(["access_token"]))
        let options = try await factors.passkeyCreationOptions(
            accessToken: APIRequest.accessToken(request, parameters: parameters),
            proof: stepUp(parameters, request, context: context))
        return Reply.ok(["options": options])
    }

    @Sendable func register(_ request: Request, context: CaptureRequestContext) async throws -> Response {
        let parameters = try await parameters(request, ["access_token", "credential", "name"])
        let passkey = try await factors.addPasskey(
            accessToken: APIRequest.accessToken(request, parameters: parameters), credential: parameters["credential"],
            name: parameters["name"])
        return Reply.ok(["passkey": EntityEncoder.passkeyView(passkey)])
    }

    @Sendable func signInOptions(_ request: Request, context: CaptureRequestContext) async throws -> Response {
        let parameters = try await parameters(request, ["email"])
        let flowRequest = APIRequest.flowRequest(parameters, request, context: context, proxies: proxies)
        return Reply.ok(["options": try await factors.passkeyRequestOptions(flowRequest, email: parameters["email"])])
    }

    @Sendable func remove(_ request: Request, context: CaptureRequestContext) async throws -> Response {
        let parameters = try await parameters(request, StepUpProof.parameters.union(["access_token", "passkey_id"]))
        try await factors.removePasskey(
            accessToken: APIRequest.accessToken(request, parameters: parameters), id: parameters["passkey_id"],
            proof: stepUp(parameters, request, context: context))
        return Reply.ok()
    }

    /// Replies as `/oauth/auth_native_traditional` does.
    @Sendable func signIn(_ request: Request, context: CaptureRequestContext) async throws -> Response {
        let parameters = try await parameters(request, Self.signInParameters.union(["credential"]))
        var flowRequest = APIRequest.flowRequest(parameters, request, context: context, proxies: proxies)
        flowRequest.fields = [:]
        let result = try await factors.signInWithPasskey(flowRequest, credential: parameters["credential"])
        return try await CaptureAPIController.authReply(result, profile: profile, settings: settings)
    }

    @Sendable func factors(_ request: Request, context: CaptureRequestContext) async throws -> Response {
        let parameters = try await parameters(request, ["access_token"])
        let listed = try await factors.factors(accessToken: APIRequest.accessToken(request, parameters: parameters))
        return Reply.ok([
            "passkeys": EntityEncoder.passkeyList(listed.passkeys),
            "second_factor": [
                "enabled": .bool(listed.secondFactor), "recovery_codes_left": .int(Int64(listed.recoveryCodesLeft)),
            ],
            "password": .bool(listed.password),
        ])
    }

    @Sendable func setup(_ request: Request, context: CaptureRequestContext) async throws -> Response {
        let parameters = try await parameters(request, StepUpProof.parameters.union(["access_token"]))
        let setup = try await factors.beginAuthenticatorSetup(
            accessToken: APIRequest.accessToken(request, parameters: parameters),
            proof: stepUp(parameters, request, context: context))
        return Reply.ok([
            "secret": .string(setup.secret), "otpauth_uri": .string(setup.provisioningURI),
            "setup_ticket": .string(setup.setupTicket),
        ])
    }

    @Sendable func confirm(_ request: Request, context: CaptureRequestContext) async throws -> Response {
        let parameters = try await parameters(request, ["access_token", "setup_ticket", "code"])
        let codes = try await factors.confirmAuthenticatorSetup(
            accessToken: APIRequest.accessToken(request, parameters: parameters), ticket: parameters["setup_ticket"],
            code: parameters["code"])
        return Reply.ok(["recovery_codes": .array(codes.map(JSONValue.string))])
    }

    @Sendable func disable(_ request: Request, context: CaptureRequestContext) async throws -> Response {
        let parameters = try await parameters(request, ["access_token", "code", "current_password"])
        try await factors.disableSecondFactor(
            accessToken: APIRequest.accessToken(request, parameters: parameters), code: parameters["code"],
            proof: stepUp(parameters, request, context: context))
        return Reply.ok()
    }

    /// Replies as `/oauth/auth_native_traditional` does.
    @Sendable func secondFactor(_ request: Request, context: CaptureRequestContext) async throws -> Response {
        let parameters = try await parameters(request, ["client_secret", "ticket", "code"])
        let flowRequest = APIRequest.flowRequest(parameters, request, context: context, proxies: proxies)
        let result = try await signIn.completeSecondFactor(
            ticket: parameters["ticket"], code: parameters["code"], flowRequest)
        return try await CaptureAPIController.authReply(result, profile: profile, settings: settings)
    }

    /// What a sign-in takes besides its credentials: the client, response type, PKCE, Janrain's refresh secret,
    /// `reactivate` (a sign-in that brings back an account its owner deleted) and `accept_documents`.
    static let signInParameters: Set<String> = [
        "client_secret", "redirect_uri", "response_type", "refresh_secret", "code_challenge", "code_challenge_method",
        "device_token", "reactivate", "accept_documents", "oidc_request",
    ]
}

/// The associated-domain files iOS and Android fetch before letting an app use this service's passkeys.
struct AppAssociationController {
    let settings: ServiceSettings

    func addRoutes(to router: some RouterMethods<CaptureRequestContext>) {
        let apple = Self.document(AppAssociation.appleAppSiteAssociation(settings.clients))
        let android = Self.document(AppAssociation.assetLinks(settings.clients))
        router.get("/.well-known/apple-app-site-association") { _, _ in apple }
        router.get("/.well-known/assetlinks.json") { _, _ in android }
    }

    /// `application/json`, cacheable for an hour (settings change only with a restart).
    static func document(_ value: JSONValue) -> Response {
        Reply.cacheable(value, maxAge: 3600)
    }
}
