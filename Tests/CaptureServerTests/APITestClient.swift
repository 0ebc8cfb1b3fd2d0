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

/// Drives the real router in-process (no sockets).
struct API {
    let client: any TestClientProtocol

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

    private func send(_ path: String, method: HTTPRequest.Method, headers: HTTPFields, body: ByteBuffer?) async throws -> Reply {
        try await client.execute(uri: path, method: method, headers: headers, body: body) { response in
            let data = Data(buffer: response.body)
            let json = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
            return Reply(status: response.status, headers: response.headers, json: json, text: String(decoding: data, as: UTF8.self))
        }
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
