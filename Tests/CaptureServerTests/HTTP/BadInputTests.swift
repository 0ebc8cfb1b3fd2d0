import CaptureCore
import CaptureTestSupport
import Foundation
import Hummingbird
import Testing

@Suite struct BadInputTests {
    @Test func malformedEncodingsAreNamed400s() async throws {
        try await withAPI { api, _ in
            let cases: [(ByteBuffer, String)] = [
                (ByteBuffer(string: "access_token=%zz"), "access_token"),
                (ByteBuffer(bytes: Array("access_token=".utf8) + [0xFF, 0xFE]), "access_token"),
                (ByteBuffer(string: "access_token=a&access_token=b"), "access_token"),
                (ByteBuffer(string: "=x"), "body"),
            ]
            for (body, argument) in cases {
                let reply = try await api.post("/entity", raw: body)
                #expect(reply.status == .badRequest)
                #expect(reply.stat == "error")
                #expect(reply.code == 200)
                #expect(reply["argument"] as? String == argument)
            }
        }
    }

    /// U+0000 in a field, a query or a JSON string is refused with the field named, on either backend (PostgreSQL's
    /// text cannot hold it; a 500 from storage would be the alternative).
    @Test(arguments: TestBackend.allCases) func aNULCharacterIsANamed400(_ backend: TestBackend) async throws {
        try await withAPI(backend: backend) { api, world in
            let form = try await api.post("/entity", raw: ByteBuffer(string: "access_token=a%00b"))
            #expect(form.status == .badRequest && form["argument"] as? String == "access_token")
            let token = try #require(try await world.register("nul@example.com").grant?.accessToken)
            let value = try await api.post(
                "/entity.update", ["access_token": token, "attribute_name": "/", "value": #"{"displayName":"a\u0000"}"#])
            #expect(value.stat == "error" && value["argument"] as? String == "value", "\(value.text)")
            #expect(try await world.service.store.users.find(email: "nul@example.com")?.profile["displayName"] == "Tester")
            let key = try await world.service.admin.createAdminKey(name: "nul", by: .service).presented
            for path in ["/admin/v1/users?search=a%00b", "/admin/v1/audit?target=%00", "/admin/v1/users/a%00b"] {
                let reply = try await api.get(path, headers: [.authorization: "Bearer \(key)"])
                #expect(reply.status == .badRequest, "\(path): \(reply.text)")
            }
            let page = try await api.get("/flows/webViewSignIn?client_id=demo-mobile-app&locale=%00")
            #expect(page.status == .badRequest)
        }
    }

    @Test func otherContentTypesGet415() async throws {
        try await withAPI { api, _ in
            let reply = try await api.post(
                "/entity", raw: ByteBuffer(string: #"{"access_token":"x"}"#), contentType: "application/json")
            #expect(reply.status == .unsupportedMediaType)
            #expect(reply.stat == "error")
        }
    }

    @Test func aThreeMebibyteBodyGets413AndWritesNothing() async throws {
        try await withAPI { api, world in
            var fields = TestWorld.registration(email: "big@example.com")
            fields["displayName"] = String(repeating: "x", count: 3 * 1024 * 1024)
            let reply = try await api.post("/oauth/register_native_traditional", fields)
            #expect(reply.status == .contentTooLarge)
            #expect(reply.stat == "error")
            #expect(reply["error"] as? String == "request_too_large")
            #expect(try await world.service.admin.listUsers().isEmpty)
        }
    }

    @Test func unknownRoutesAnswerInTheContractsShape() async throws {
        try await withAPI { api, _ in
            let post = try await api.post("/oauth/nope", [:])
            #expect(post.status == .notFound)
            #expect(post.stat == "error" && post.code == 200)
            #expect((post["error_description"] as? String)?.contains("/oauth/nope") == true)
            let wrongMethod = try await api.get("/oauth/auth_native_traditional?access_token=secret")
            #expect(wrongMethod.status == .notFound)
            #expect(wrongMethod.stat == "error")
            #expect(!wrongMethod.text.contains("secret"), "the query is never echoed")
            let page = try await api.get("/no/such/page")
            #expect(page.status == .notFound)
            #expect(page.headers[.contentType]?.hasPrefix("text/html") == true)
            #expect(page.text.contains("/no/such/page"))
            #expect(page.text.contains("<h1>Page not found</h1>"), "in words, not catalog keys")
            #expect(page.headers[.contentSecurityPolicy] != nil)
        }
    }

    @Test func secretsInTheQueryStringAreRefused() async throws {
        try await withAPI { api, _ in
            let reply = try await api.post("/entity?access_token=abc", [:])
            #expect(reply.status == .badRequest)
            #expect(reply["argument"] as? String == "query")
        }
    }

    @Test func controlCharactersAndOverlongFieldsAreFieldErrors() async throws {
        try await withAPI { api, _ in
            var fields = TestWorld.registration(email: "ctrl@example.com")
            fields["displayName"] = "bad\u{7}name"
            fields["firstName"] = String(repeating: "y", count: 65)
            let reply = try await api.post("/oauth/register_native_traditional", fields)
            #expect(reply.code == 390)
            let invalid = try #require(reply["invalid_fields"] as? [String: [String]])
            #expect(Set(invalid.keys) == ["displayName", "firstName"])
        }
    }
}
