import CaptureCore
import Hummingbird

/// `POST /verify`: BrowserID-style receipts for app backends (`{"status":"okay",…}` or `{"status":"failure",…}`).
struct VerifyController {
    let service: CaptureService

    func addRoutes(to router: Router<CaptureRequestContext>) {
        router.post("/verify", use: verify)
    }

    @Sendable func verify(_ request: Request, context: CaptureRequestContext) async throws -> Response {
        do {
            let parameters = try await APIRequest.parameters(request, limit: service.settings.maxBodyBytes)
            let receipt = try await service.verify(assertion: parameters["assertion"], audience: parameters["audience"])
            return Reply.json(receipt.json)
        } catch let error as CaptureError {
            // BrowserID answers a request it cannot act on with 400, where the Capture API says 200.
            let transport = Reply.captureStatus(of: error)
            let status: HTTPResponse.Status = transport == .ok ? .badRequest : transport
            let reason = error.code == 100 ? "need assertion and audience" : error.errorDescription
            return Reply.json(VerifyReceipt.failure(reason: reason).json, status: status)
        }
    }
}
