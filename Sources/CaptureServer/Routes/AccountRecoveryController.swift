import CaptureCore
import Hummingbird

/// Janrain's recovery and verification calls (`forgot_password_native`, `verify_email_native`), the two steps that
/// spend their codes and the check of a reset link's code: decode, call one use case, encode.
struct AccountRecoveryController {
    let proxies: TrustedProxies
    let settings: ServiceSettings
    let recovery: RecoveryService

    /// The code-spending steps name the code and the address outside the form.
    static let codeParameters: Set<String> = ["verification_code", "email"]

    func addRoutes(to router: some RouterMethods<CaptureRequestContext>) {
        router.post(RouterPath(FormEndpoint.forgotPassword.path), use: forgotPassword)
        router.post(RouterPath(FormEndpoint.requestVerification.path), use: requestVerification)
        router.post(RouterPath(FormEndpoint.resetPassword.path), use: resetPassword)
        router.post(RouterPath(FormEndpoint.useVerificationCode.path), use: useVerificationCode)
        router.post(RouterPath(FormEndpoint.checkResetCode.path), use: checkResetCode)
    }

    private func flowRequest(_ parameters: [String: String], _ request: Request, _ context: CaptureRequestContext) -> FlowRequest
    {
        APIRequest.flowRequest(
            parameters.filter { !Self.codeParameters.contains($0.key) }, request, context: context, proxies: proxies)
    }

    @Sendable func forgotPassword(_ request: Request, context: CaptureRequestContext) async throws -> Response {
        let parameters = try await APIRequest.parameters(request, limit: settings.maxBodyBytes)
        try await recovery.requestPasswordReset(flowRequest(parameters, request, context))
        return Reply.ok()
    }

    @Sendable func requestVerification(_ request: Request, context: CaptureRequestContext) async throws -> Response {
        let parameters = try await APIRequest.parameters(request, limit: settings.maxBodyBytes)
        try await recovery.requestVerification(flowRequest(parameters, request, context))
        return Reply.ok()
    }

    @Sendable func resetPassword(_ request: Request, context: CaptureRequestContext) async throws -> Response {
        let parameters = try await APIRequest.parameters(request, limit: settings.maxBodyBytes)
        _ = try await recovery.resetPassword(
            flowRequest(parameters, request, context), code: parameters["verification_code"], email: parameters["email"])
        return Reply.ok()
    }

    @Sendable func useVerificationCode(_ request: Request, context: CaptureRequestContext) async throws -> Response {
        let parameters = try await APIRequest.parameters(request, limit: settings.maxBodyBytes)
        try CaptureAPIController.refuseUnknown(parameters, allowed: Set(FormEndpoint.useVerificationCode.parameters ?? []))
        let user = try await recovery.verifyEmail(
            code: parameters["verification_code"], email: parameters["email"], locale: parameters["locale"],
            acceptLanguage: request.headers.value(.acceptLanguage),
            requester: APIRequest.origin(request, context: context, proxies: proxies).address)
        return Reply.ok(["uuid": .string(user.id)])
    }

    @Sendable func checkResetCode(_ request: Request, context: CaptureRequestContext) async throws -> Response {
        let parameters = try await APIRequest.parameters(request, limit: settings.maxBodyBytes)
        try CaptureAPIController.refuseUnknown(parameters, allowed: Set(FormEndpoint.checkResetCode.parameters ?? []))
        try await recovery.checkResetCode(
            code: parameters["verification_code"], email: parameters["email"], locale: parameters["locale"],
            acceptLanguage: request.headers.value(.acceptLanguage),
            requester: APIRequest.origin(request, context: context, proxies: proxies).address)
        return Reply.ok()
    }
}
