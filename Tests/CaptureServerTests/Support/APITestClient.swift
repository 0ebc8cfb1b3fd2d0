import CaptureCore
import CaptureServer
import CaptureTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// A decoded reply: status, headers and the JSON object (empty when the body is not JSON).
struct Reply {
    let status: HTTPResponse.Status
    let headers: HTTPFields
    let json: [String: Any]
    let text: String

    subscript(key: String) -> Any? { json[key] }
    var code: Int? { json["code"] as? Int }
    var stat: String? { json["stat"] as? String }
}

/// Drives the real router: in-process (no sockets), or over loopback sockets to a live server when the peer's
/// address matters.
struct API {
    enum Transport {
        case inProcess(any TestClientProtocol)
        /// A fresh connection per request, waiting as long as a loaded test machine may need: the suite runs every
        /// test at once on two cores, so a reply can take longer than HummingbirdTesting's 20-second live client allows.
        case socket(port: Int)
    }
    let transport: Transport

    init(client: any TestClientProtocol) { transport = .inProcess(client) }
    init(port: Int) { transport = .socket(port: port) }

    static let socketTimeout: Duration = .seconds(120)

    static func form(_ fields: [String: String]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return fields.sorted { $0.key < $1.key }.map { key, value in
            "\(key.addingPercentEncoding(withAllowedCharacters: allowed)!)=\(value.addingPercentEncoding(withAllowedCharacters: allowed)!)"
        }.joined(separator: "&")
    }

    func post(_ path: String, _ fields: [String: String], headers: HTTPFields = [:]) async throws -> Reply {
        try await post(path, raw: ByteBuffer(string: Self.form(fields)), headers: headers)
    }

    func post(
        _ path: String, raw: ByteBuffer, contentType: String = "application/x-www-form-urlencoded", headers: HTTPFields = [:]
    ) async throws -> Reply {
        var all = headers
        all[.contentType] = contentType
        return try await send(path, method: .post, headers: all, body: raw)
    }

    func get(_ path: String, headers: HTTPFields = [:]) async throws -> Reply {
        try await send(path, method: .get, headers: headers, body: nil)
    }

    func send(
        _ path: String, method: HTTPRequest.Method, headers: HTTPFields = [:], body: ByteBuffer? = nil
    ) async throws -> Reply {
        switch transport {
        case .inProcess(let client):
            return try await client.execute(uri: path, method: method, headers: headers, body: body) { response in
                Self.reply(response.status, response.headers, response.body)
            }
        case .socket(let port):
            return try await TestClient.withClient(
                host: "127.0.0.1", port: port, configuration: .init(timeout: Self.socketTimeout)
            ) {
                let request = TestClient.Request(path, method: method, authority: "localhost", headers: headers, body: body)
                let response = try await $0.execute(request)
                return Self.reply(response.status, response.headers, response.body ?? ByteBuffer())
            }
        }
    }

    private static func reply(_ status: HTTPResponse.Status, _ headers: HTTPFields, _ body: ByteBuffer) -> Reply {
        let data = Data(buffer: body)
        let json = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
        return Reply(status: status, headers: headers, json: json, text: String(decoding: data, as: UTF8.self))
    }
}

/// Runs `body` against a fresh service on its own database.
func withAPI(
    backend: TestBackend = .selected, configure: (inout ServiceSettings) -> Void = { _ in },
    _ body: @escaping @Sendable (API, TestWorld) async throws -> Void
) async throws {
    let world = try await TestWorld.make(backend: backend, configure: configure)
    let app = Application(router: try buildRouter(service: world.service))
    try await app.test(.router) { client in try await body(API(client: client), world) }
}
