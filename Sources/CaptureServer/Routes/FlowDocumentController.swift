import CaptureCore
import Hummingbird

/// `GET /widget_data/flows/{appId}/{flow}/{version}/{locale}.json`: the flow document jump.ios and jump.android
/// download at start-up. `version` may be the flow's current version or `HEAD`; older versions are not kept.
struct FlowDocumentController {
    let service: CaptureService

    func addRoutes(to router: Router<CaptureRequestContext>) {
        router.get("/widget_data/flows/:appId/:flow/:version/:file", use: document)
    }

    @Sendable func document(_ request: Request, context: CaptureRequestContext) async throws -> Response {
        let file = context.parameters.get("file") ?? ""
        guard context.parameters.get("appId") == service.settings.appID,
            let flow = service.catalog.flow(named: context.parameters.get("flow") ?? ""),
            let version = context.parameters.get("version"), version == "HEAD" || version == flow.flowVersion,
            file.hasSuffix(".json"), file.count > 5
        else {
            var response = Reply.captureError(
                .recordNotFound("flow document (app id, flow name, flow version HEAD or current, locale.json)"))
            response.status = .notFound
            return response
        }
        var response = Reply.json(service.catalog.document(for: flow, locale: String(file.dropLast(5))))
        // Not a token reply: SDKs and proxies may keep it for a while.
        response.headers[.cacheControl] = "public, max-age=300"
        response.headers[.pragma] = nil
        return response
    }
}
