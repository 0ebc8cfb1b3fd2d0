import CaptureCore
import Hummingbird

/// `/oauth/accept_terms`: a sign-in that stopped for documents the client requires (280 `terms_not_accepted`,
/// with `terms_ticket`) finishes once they are accepted; the reply is the sign-in's own.
struct TermsController {
    let proxies: TrustedProxies
    let settings: ServiceSettings
    let signIn: SignInService
    let profile: ProfileService

    func addRoutes(to router: some RouterMethods<CaptureRequestContext>) {
        router.post("/oauth/accept_terms", use: accept)
    }

    @Sendable func accept(_ request: Request, context: CaptureRequestContext) async throws -> Response {
        let parameters = try await FactorsController.parameters(
            request, ["client_secret", "ticket", "accept_documents"], limit: settings.maxBodyBytes)
        let flowRequest = APIRequest.flowRequest(parameters, request, context: context, proxies: proxies)
        let result = try await signIn.acceptTerms(ticket: parameters["ticket"], flowRequest)
        return try await CaptureAPIController.authReply(result, profile: profile, settings: settings)
    }
}
