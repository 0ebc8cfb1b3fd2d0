import CaptureCore
import Hummingbird

/// `POST /verify`: BrowserID-style receipts for app backends (`{"status":"okay",…}` or `{"status":"failure",…}`).
struct VerifyController {
    let settings: ServiceSettings
    let tokens: TokenService

    func addRoutes(to router: some RouterMethods<CaptureRequestContext>) {
        router.post("/verify", use: verify)
    }

    @Sendable func verify(_ request: Request, context: CaptureRequestContext) async throws -> Response {
        let parameters = try await APIRequest.parameters(request, limit: settings.maxBodyBytes)
        let receipt = try await tokens.verify(assertion: parameters["assertion"], audience: parameters["audience"])
        return Reply.json(bytes: receipt.encodedBytes)
    }
}
