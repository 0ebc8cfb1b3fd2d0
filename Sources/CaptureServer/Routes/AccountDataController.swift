import CaptureCore
import CaptureJSON
import Foundation
import Hummingbird

/// "Download my data" in the Capture API's style: the document in the reply, or mailed to the account's address.
/// Decode, call one use case, encode.
struct AccountDataController {
    let privacy: PrivacyService
    let settings: ServiceSettings

    func addRoutes(to router: some RouterMethods<CaptureRequestContext>) {
        router.post("/account/export", use: export)
        router.post("/account/export_mail", use: mail)
    }

    @Sendable func export(_ request: Request, context: CaptureRequestContext) async throws -> Response {
        let parameters = try await FactorsController.parameters(request, ["access_token"], limit: settings.maxBodyBytes)
        let export = try await privacy.exportAccount(accessToken: APIRequest.accessToken(request, parameters: parameters))
        return Reply.ok(["export": try AdminViews.document(export)])
    }

    @Sendable func mail(_ request: Request, context: CaptureRequestContext) async throws -> Response {
        let parameters = try await FactorsController.parameters(request, ["access_token"], limit: settings.maxBodyBytes)
        try await privacy.mailAccountExport(
            accessToken: APIRequest.accessToken(request, parameters: parameters), locale: parameters["locale"])
        return Reply.ok()
    }
}
