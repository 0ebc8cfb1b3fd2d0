import CaptureCore
import CaptureServer
import CaptureTestSupport
import Foundation
import Hummingbird
import Testing

/// What a hostile request costs the service, against a live server over real sockets: the review's payloads
/// (deep nesting, a wide object, a huge string, thousands of parameters) get a clear Capture error, never a 5xx,
/// whether or not they carry a valid token. (That `/health/live` keeps answering while they arrive is checked in
/// Tests/Interop/test_hostile_load.py, where no other test's work shares the machine.)
@Suite struct RequestCostTests {
    /// A reply read off its own connection.
    struct LiveReply {
        let status: HTTPResponse.Status
        let json: [String: Any]
        var code: Int? { json["code"] as? Int }
        var error: String? { json["error"] as? String }
        var argument: String? { json["argument"] as? String }
        /// Capture's `error_description`, or `/verify`'s `reason`.
        var description: String { json["error_description"] as? String ?? json["reason"] as? String ?? "" }
    }

    /// Sends one request on a fresh connection, so concurrent calls never queue behind each other on the client side.
    static func send(
        port: Int, _ path: String, method: HTTPRequest.Method = .post, body: String? = nil
    ) async throws
        -> LiveReply
    {
        var headers: HTTPFields = [:]
        if body != nil { headers[.contentType] = "application/x-www-form-urlencoded" }
        let reply = try await API.overSocket(
            port: port, path, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) })
        return LiveReply(status: reply.status, json: reply.json)
    }

    /// Runs `body` against a live server on a free port, with a registered user's access token.
    static func withLiveServer(
        _ body: @escaping @Sendable (_ port: Int, _ token: String, TestWorld) async throws -> Void
    )
        async throws
    {
        // A free loopback port, as the server's own settings name it.
        let world = try await TestWorld.make { settings in
            settings.host = "127.0.0.1"
            settings.port = 0
        }
        let token = try #require(try await world.register("cost@example.com").grant?.accessToken)
        try await withLoopbackServer({ try buildApplication(features: world.service, onServerRunning: $0) }) { port in
            try await body(port, token, world)
        }
    }

    // The payloads, as raw form bodies that fit the default 1 MiB body limit. JSON's punctuation needs no
    // percent-encoding in a form body (only '&', '=', '+' and '%' mean something there).

    /// The review's reproduction: 50 arrays, each nested 511 deep (about 51 KB).
    static let nestedArrays: String = {
        let one = String(repeating: "[", count: 511) + "1" + String(repeating: "]", count: 511)
        return "[" + Array(repeating: one, count: 50).joined(separator: ",") + "]"
    }()

    /// An object with 100 000 members (about 1 MB).
    static let wideObject = "{" + (0..<100_000).map { "\"\(String($0, radix: 36))\":0" }.joined(separator: ",") + "}"

    /// One string of 1 000 000 bytes.
    static let hugeString = #"{"displayName":""# + String(repeating: "a", count: 1_000_000) + #""}"#

    static func entityUpdate(token: String, attributes: String) -> String {
        "access_token=\(token)&attributes=\(attributes)"
    }

    /// 20 000 parameters (about 200 KB).
    static let manyParameters = (0..<20_000).map { "p\($0)=1" }.joined(separator: "&")

    @Test func withoutAValidTokenHostileJSONIsRefusedBeforeItIsParsed() async throws {
        try await Self.withLiveServer { port, _, _ in
            for attributes in [Self.nestedArrays, Self.wideObject, Self.hugeString] {
                let reply = try await Self.send(
                    port: port, "/entity.update", body: Self.entityUpdate(token: "not-a-token", attributes: attributes))
                #expect(reply.status == .ok)
                #expect(reply.json["stat"] as? String == "error")
                #expect(reply.error == "invalid_access_token", "the token is checked first: \(reply.description)")
            }
        }
    }

    @Test func withAValidTokenHostileJSONIsRefusedByTheParsersLimits() async throws {
        try await Self.withLiveServer { port, token, world in
            let cases = [
                (Self.nestedArrays, "nested more than 32 levels deep"),
                (Self.wideObject, "longer than 65536 bytes"),
                (Self.hugeString, "longer than 65536 bytes"),
                // Under the size limit, the value and string limits still hold.
                ("[" + Array(repeating: "0", count: 10_000).joined(separator: ",") + "]", "more than 10000 values"),
                (#"{"displayName":""# + String(repeating: "a", count: 5_000) + #""}"#, "string is longer than 4096 bytes"),
            ]
            for (attributes, limit) in cases {
                let reply = try await Self.send(
                    port: port, "/entity.update", body: Self.entityUpdate(token: token, attributes: attributes))
                #expect(reply.status == .badRequest)
                #expect(reply.json["stat"] as? String == "error")
                #expect(reply.code == 200 && reply.error == "invalid_argument")
                #expect(reply.argument == "attributes")
                #expect(
                    reply.description.contains("exceeds the JSON limits") && reply.description.contains(limit),
                    "\(reply.description)")
            }
            #expect(try await world.service.profile.entity(accessToken: token).displayName == "Tester", "nothing was written")
        }
    }

    @Test func moreThan64ParametersAreRefusedOnEveryEndpoint() async throws {
        try await Self.withLiveServer { port, token, _ in
            for path in ["/entity.update", "/entity", "/oauth/register_native_traditional", "/oauth/token", "/verify"] {
                let reply = try await Self.send(port: port, path, body: "access_token=\(token)&" + Self.manyParameters)
                #expect(reply.status == .badRequest, "\(path)")
                #expect(reply.description.contains("more than 64 parameters"), "\(path): \(reply.description)")
            }
        }
    }
}
