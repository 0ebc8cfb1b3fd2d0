import CaptureCore
import Foundation
import Hummingbird

/// `GET /openapi.json`: the OpenAPI 3.1 description of the HTTP surface (`WebFlows/api/openapi.json`), read once at
/// start-up from the configured webFlows directory like the pages' assets. A route added without a description
/// fails `OpenAPIDocumentTests`.
struct OpenAPIController {
    /// Where the document lives under the webFlows directory.
    static let file = "api/openapi.json"

    let document: ByteBuffer

    /// Reads the document; a missing or unparsable file stops start-up naming it, as a bad page template does.
    init(webFlows directory: String) throws {
        let url = URL(fileURLWithPath: directory).appendingPathComponent(Self.file)
        guard let data = try? Data(contentsOf: url) else {
            throw SettingsError(file: url.path, key: "openapi", problem: "the OpenAPI document cannot be read")
        }
        guard (try? JSONSerialization.jsonObject(with: data)) is [String: Any] else {
            throw SettingsError(file: url.path, key: "openapi", problem: "the OpenAPI document is not a JSON object")
        }
        document = ByteBuffer(data: data)
    }

    func addRoutes(to router: some RouterMethods<CaptureRequestContext>) {
        router.get("/openapi.json") { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "application/json; charset=utf-8"
            headers[.cacheControl] = "public, max-age=300"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: document))
        }
    }
}
