import CaptureCore
import Crypto
import Foundation
import Hummingbird

/// `GET /widget_data/flows/{appId}/{flow}/{version}/{locale}.json`: the flow document jump.ios and jump.android
/// download at start-up. `version` may be the flow's current version or `HEAD`; older versions are not kept.
struct FlowDocumentController {
    let settings: ServiceSettings
    let catalog: FlowCatalog

    func addRoutes(to router: some RouterMethods<CaptureRequestContext>) {
        router.get("/widget_data/flows/:appId/:flow/:version/:file", use: document)
    }

    @Sendable func document(_ request: Request, context: CaptureRequestContext) async throws -> Response {
        let file = context.parameters.get("file") ?? ""
        guard context.parameters.get("appId") == settings.appID,
            let flow = catalog.flow(named: context.parameters.get("flow") ?? ""),
            let version = context.parameters.get("version"), version == "HEAD" || version == flow.flowVersion,
            file.hasSuffix(".json"), file.count > 5
        else {
            var response = Reply.captureError(
                .recordNotFound("flow document (app id, flow name, flow version HEAD or current, locale.json)"))
            response.status = .notFound
            return response
        }
        let document = catalog.document(for: flow, locale: String(file.dropLast(5))).encoded()
        // jump.ios keeps the ETag and sends it back as If-None-Match: an unchanged flow costs no body.
        let etag = "\"" + Data(SHA256.hash(data: document).prefix(16)).base64URLEncoded() + "\""
        var headers = HTTPFields()
        // Not a token reply: SDKs and proxies may keep it for a while.
        headers[.cacheControl] = "public, max-age=300"
        headers[.eTag] = etag
        let presented = request.headers[values: .ifNoneMatch].flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces) }
        if presented.contains(etag) || presented.contains("*") {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(data: document)))
    }
}
