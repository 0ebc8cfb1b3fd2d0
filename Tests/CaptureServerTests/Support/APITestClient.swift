import CaptureCore
import CaptureOutbound
import CaptureServer
import CaptureTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Testing

/// A decoded reply: status, headers and the JSON object (empty when the body is not JSON).
struct Reply {
    let status: HTTPResponse.Status
    let headers: HTTPFields
    let json: [String: Any]
    let text: String
    /// The body's bytes as they came (a gzip-coded body is not text).
    var data = Data()

    subscript(key: String) -> Any? { json[key] }
    var code: Int? { json["code"] as? Int }
    var stat: String? { json["stat"] as? String }
}

/// Drives the real router: in-process (no sockets), or over loopback sockets to a live server when the peer's
/// address matters.
struct API {
    enum Transport {
        case inProcess(RouterClient)
        /// libcurl (the service's own outbound client), waiting as long as a loaded test machine may need: the suite
        /// runs every test at once on two cores.
        case socket(port: Int)
    }
    let transport: Transport

    init(router: Router<CaptureRequestContext>, logger: Logger = Logger(label: "capture-test")) {
        transport = .inProcess(RouterClient(router: router, logger: logger))
    }
    init(port: Int) { transport = .socket(port: port) }

    static let socketTimeout: Double = 120
    static let http = OutboundHTTPClient()

    static func form(_ fields: [String: String]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return fields.sorted { $0.key < $1.key }.map { key, value in
            "\(key.addingPercentEncoding(withAllowedCharacters: allowed)!)=\(value.addingPercentEncoding(withAllowedCharacters: allowed)!)"
        }.joined(separator: "&")
    }

    // Each request names the test line that sent it (`sourceLocation`), where a reply the OpenAPI document does not
    // describe is reported.
    func post(
        _ path: String, _ fields: [String: String], headers: HTTPFields = [:], sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> Reply {
        try await post(path, raw: ByteBuffer(string: Self.form(fields)), headers: headers, sourceLocation: sourceLocation)
    }

    func post(
        _ path: String, raw: ByteBuffer, contentType: String = "application/x-www-form-urlencoded", headers: HTTPFields = [:],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> Reply {
        var all = headers
        all[.contentType] = contentType
        return try await send(path, method: .post, headers: all, body: raw, sourceLocation: sourceLocation)
    }

    func get(_ path: String, headers: HTTPFields = [:], sourceLocation: SourceLocation = #_sourceLocation) async throws -> Reply {
        try await send(path, method: .get, headers: headers, body: nil, sourceLocation: sourceLocation)
    }

    func send(
        _ path: String, method: HTTPRequest.Method, headers: HTTPFields = [:], body: ByteBuffer? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> Reply {
        switch transport {
        case .inProcess(let client):
            let (head, body) = try await client.execute(path, method: method, headers: headers, body: body)
            return Self.reply(to: method, path, head.status, head.headerFields, body, sourceLocation: sourceLocation)
        case .socket(let port):
            return try await Self.overSocket(
                port: port, path, method: method, headers: headers, body: body, sourceLocation: sourceLocation)
        }
    }

    /// One request over loopback; the reply as the in-process transport gives it.
    static func overSocket(
        port: Int, _ path: String, method: HTTPRequest.Method, headers: HTTPFields, body: ByteBuffer?,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> Reply {
        let verb = try #require(OutboundHTTPRequest.Method(rawValue: method.rawValue))
        // The same authority as in-process requests; libcurl would otherwise name 127.0.0.1:<port>.
        let fields =
            [OutboundHTTPHeader(name: "Host", value: "localhost")]
            + headers.map { OutboundHTTPHeader(name: $0.name.rawName, value: $0.value) }
        let response = try await http.send(
            OutboundHTTPRequest(
                method: verb, url: "http://127.0.0.1:\(port)\(path)", headers: fields, body: body.map { Data(buffer: $0) },
                connectTimeoutSeconds: socketTimeout, totalTimeoutSeconds: socketTimeout, maxResponseBytes: 64 << 20,
                allowsPlainHTTP: true))
        var replyHeaders = HTTPFields()
        for header in response.headers {
            if let name = HTTPField.Name(header.name) { replyHeaders.append(HTTPField(name: name, value: header.value)) }
        }
        return reply(
            to: method, path, HTTPResponse.Status(code: response.status), replyHeaders, ByteBuffer(data: response.body),
            sourceLocation: sourceLocation)
    }

    /// Every reply either transport brings passes here, and is held against the OpenAPI document on its way
    /// (OpenAPIReplyCheck.swift): a mismatch fails the test that received it.
    private static func reply(
        to method: HTTPRequest.Method, _ path: String, _ status: HTTPResponse.Status, _ headers: HTTPFields, _ body: ByteBuffer,
        sourceLocation: SourceLocation
    ) -> Reply {
        let data = Data(buffer: body)
        ReplyTally.check(
            method: method.rawValue, path: path, status: status.code, headers: headers, body: Array(data),
            sourceLocation: sourceLocation)
        let json = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
        return Reply(status: status, headers: headers, json: json, text: String(decoding: data, as: UTF8.self), data: data)
    }
}

/// Runs `body` against a fresh service on its own database.
func withAPI(
    backend: TestBackend = .selected, configure: (inout ServiceSettings) -> Void = { _ in },
    _ body: @escaping @Sendable (API, TestWorld) async throws -> Void
) async throws {
    let world = try await TestWorld.make(backend: backend, configure: configure)
    try await body(API(router: try buildRouter(features: world.service)), world)
}

/// `withAPI` over real sockets on loopback (the peer is 127.0.0.1): for rules about the client's address, which
/// forwarding headers name only through a trusted proxy.
func withLiveAPI(
    configure: @escaping (inout ServiceSettings) -> Void, _ body: @escaping @Sendable (API, TestWorld) async throws -> Void
) async throws {
    let world = try await TestWorld.make(configure: configure)
    let router = try buildRouter(features: world.service)
    try await withLoopbackServer({ loopbackApplication(router: router, onServerRunning: $0) }) { port in
        try await body(API(port: port), world)
    }
}
