import CaptureJSON
import CaptureTestSupport
import Foundation
import HTTPTypes
import Testing

/// The check every `API` reply passes (Support/OpenAPIReplyCheck.swift) is not a silent no-op: it flags replies that
/// break a schema, a status or a content type the document does not list, and it really did check the replies of a
/// run, deactivation's success among them (the reply schemathesis never reaches, whose schema was once wrong).
@Suite struct OpenAPIReplyCheckTests {
    static func check() throws -> OpenAPIReplyCheck { try OpenAPIReplyCheck.shared.get() }

    /// The headers every reply carries (SecurityHeaders), which the document requires.
    static let secured: HTTPFields = [
        .contentSecurityPolicy: "default-src 'none'; frame-ancestors 'none'", HTTPField.Name("Referrer-Policy")!: "no-referrer",
        HTTPField.Name("X-Content-Type-Options")!: "nosniff", HTTPField.Name("X-Frame-Options")!: "DENY",
    ]
    static let json = secured(with: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"])

    static func secured(with fields: HTTPFields) -> HTTPFields {
        var all = secured
        all.append(contentsOf: fields)
        return all
    }

    /// The document with `edit` applied to its members, as a check of its own.
    static func check(editing edit: (inout [String: JSONValue]) -> Void) throws -> OpenAPIReplyCheck {
        let data = try Data(contentsOf: OpenAPIReplyCheck.documentURL)
        guard case .object(var members) = try JSONParser.parse(data, limits: OpenAPIReplyCheck.limits) else {
            throw OpenAPIReplyCheck.DocumentError(problem: "not an object")
        }
        edit(&members)
        return try OpenAPIReplyCheck(document: JSONValue.object(members).encoded())
    }

    @Test func aRealRunChecksItsRepliesDeactivationsSuccessAmongThem() async throws {
        let tally = ReplyTally()
        try await ReplyTally.$observing.withValue(tally) {
            try await withAPI { api, world in
                let grant = try #require(try await world.register("checked@example.com").grant)
                let signIn = try await api.post(
                    "/oauth/auth_native_traditional",
                    TestWorld.signIn(email: "checked@example.com", password: AccountDeletionTests.password))
                #expect(signIn.stat == "ok")
                #expect(try await api.post("/entity", ["access_token": grant.accessToken]).stat == "ok")
                #expect(try await api.get("/health/live").status == .ok)
                #expect(try await api.get("/no/such/page").status == .notFound)
                let deleted = try await api.post(
                    "/oauth/deactivate_account",
                    AccountDeletionTests.deletion(grant.accessToken, password: AccountDeletionTests.password))
                #expect(deleted.stat == "ok" && deleted["erase_at"] is String)
            }
        }
        let counts = tally.snapshot
        #expect(counts["POST /oauth/deactivate_account 200"]?.bodies == 1, "\(counts)")
        #expect(counts["POST /oauth/auth_native_traditional 200"]?.bodies == 1, "\(counts)")
        #expect(counts["POST /entity 200"]?.bodies == 1, "\(counts)")
        #expect(counts["GET /health/live 200"]?.bodies == 1, "\(counts)")
        #expect(counts["unrouted 404"]?.replies == 1, "\(counts)")
        #expect(counts.values.reduce(0) { $0 + $1.replies } == 5)
    }

    /// The document as it was before issue 48: deactivation's success described as `UserReply`. The service's real
    /// reply fails it, naming both the member it lacks and the one it has.
    @Test func theOldDeactivationSchemaFailsTheRealReply() async throws {
        let old = try Self.check { members in
            guard case .object(var paths)? = members["paths"], case .object(var item)? = paths["/oauth/deactivate_account"],
                case .object(var post)? = item["post"], case .object(var responses)? = post["responses"]
            else { return }
            responses["200"] = [
                "description": "old", "content": ["application/json": ["schema": ["$ref": "#/components/schemas/UserReply"]]],
            ]
            post["responses"] = .object(responses)
            item["post"] = .object(post)
            paths["/oauth/deactivate_account"] = .object(item)
            members["paths"] = .object(paths)
        }
        let reply = #"{"erase_at":"2027-01-14 08:00:00.000000 +0000","stat":"ok"}"#
        let outcome = old.check(
            method: "POST", path: "/oauth/deactivate_account", status: 200, headers: Self.json, body: Array(reply.utf8))
        #expect(outcome.bodyChecked && outcome.problems.count == 1)
        let problem = try #require(outcome.problems.first)
        #expect(problem.contains("oneOf") && problem.contains("/erase_at") && problem.contains("\"capture_user\""), "\(problem)")
        // The document as it is takes the same reply.
        let now = try Self.check().check(
            method: "POST", path: "/oauth/deactivate_account", status: 200, headers: Self.json, body: Array(reply.utf8))
        #expect(now.bodyChecked && now.problems.isEmpty, "\(now.problems)")
    }

    @Test func statusesContentTypesHeadersAndUnroutedRepliesAreChecked() throws {
        let check = try Self.check()
        let error = Array(#"{"stat":"error","code":200,"error":"invalid_argument","error_description":"no"}"#.utf8)
        let undocumented = check.check(method: "POST", path: "/entity", status: 418, headers: Self.json, body: error)
        #expect(undocumented.problems.first?.contains("status 418 is not documented") == true, "\(undocumented.problems)")
        let html = Self.secured(with: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"])
        let wrongType = check.check(method: "POST", path: "/entity", status: 200, headers: html, body: error)
        #expect(wrongType.problems.first?.contains("content type text/html") == true, "\(wrongType.problems)")
        let uncached = check.check(
            method: "POST", path: "/entity", status: 200, headers: Self.secured(with: [.contentType: "application/json"]),
            body: error)
        #expect(uncached.problems == ["header Cache-Control is required and missing"])
        let extra = Array(#"{"stat":"error","code":200,"error":"x","error_description":"y","leak":"z"}"#.utf8)
        let leaked = check.check(method: "POST", path: "/entity", status: 200, headers: Self.json, body: extra)
        #expect(leaked.problems.count == 1 && leaked.problems[0].contains("/leak"), "\(leaked.problems)")
        // A query is not part of the path; HEAD is GET's operation; a template's parameter takes one segment.
        #expect(check.operation(method: "HEAD", path: "/flows/webViewSignIn?client_id=x")?.template == "/flows/{flow}")
        #expect(check.operation(method: "POST", path: "/admin/v1/tokens/introspect")?.template == "/admin/v1/tokens/introspect")
        #expect(check.operation(method: "GET", path: "/admin/v1/tokens/abc")?.template == "/admin/v1/tokens/{token}")
        #expect(check.operation(method: "GET", path: "/oauth/token") == nil)
        let probe = check.check(method: "GET", path: "/nowhere", status: 200, headers: Self.json, body: error)
        #expect(probe.operation == OpenAPIReplyCheck.unrouted && probe.problems.count == 1, "\(probe.problems)")
    }

    @Test func theSchemaCheckReadsTheKeywordsTheDocumentUses() throws {
        let check = JSONSchemaCheck(root: ["components": ["schemas": ["Id": ["type": "string", "pattern": "^u-"]]]])
        let schema: JSONValue = [
            "type": "object", "required": ["id", "n"], "additionalProperties": false,
            "properties": [
                "id": ["$ref": "#/components/schemas/Id"], "n": ["type": ["integer", "null"], "minimum": 1],
                "at": ["type": "string", "format": "date-time"], "a/b": ["enum": ["x", "y"]],
                "list": ["type": "array", "items": ["const": true], "maxItems": 2],
            ],
        ]
        #expect(
            check.problems(["id": "u-1", "n": .null, "at": "2026-12-05T10:00:00Z", "a/b": "x", "list": [true]], against: schema)
                == [])
        let found = check.problems(
            ["id": "v-1", "n": 0, "at": "yesterday", "a/b": "z", "list": [true, false, true], "extra": 1], against: schema)
        #expect(
            Set(found.map(\.pointer)) == ["/id", "/n", "/at", "/a~1b", "/list", "/list/1", "/extra"],
            "\(found)")
        #expect(
            check.problems(["id": "u-1"], against: schema).map(\.message) == [
                #"required member "n" is missing from {"id":"u-1"}"#
            ])
        // A keyword the check does not read is a problem, never a pass.
        #expect(check.problems("x", against: ["uniqueItems": true]).first?.message.contains("uniqueItems") == true)
        #expect(check.problems(.double(1.5), against: ["type": "integer"]).count == 1)
        #expect(check.problems(.double(2), against: ["type": "integer"]).isEmpty)
    }
}
