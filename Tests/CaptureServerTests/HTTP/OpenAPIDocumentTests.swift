import CaptureCore
import CaptureServer
import CaptureTestSupport
import Foundation
import Hummingbird
import Prometheus
import Testing

/// `WebFlows/api/openapi.json` describes exactly the routes the router has: a route added without a description (or
/// a description left behind by a removed route) fails here, naming it. Every reply a Swift test receives through
/// `API` is checked against it (Support/OpenAPIReplyCheck.swift, OpenAPIReplyCheckTests), success paths included, and
/// schemathesis checks the replies to the requests it generates (Tests/Interop/test_schemathesis.py).
@Suite struct OpenAPIDocumentTests {
    static let documentURL = OpenAPIReplyCheck.documentURL

    static func document() throws -> [String: Any] {
        let data = try Data(contentsOf: documentURL)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// "METHOD /path/{param}" for every operation of the document.
    static func documentedOperations(_ document: [String: Any]) throws -> Set<String> {
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        var operations = Set<String>()
        for (path, item) in paths {
            for key in item.keys where OpenAPIReplyCheck.methods.contains(key) {
                operations.insert("\(key.uppercased()) \(path)")
            }
        }
        return operations
    }

    @Test func everyRouteIsDocumentedAndEveryDocumentedOperationIsARoute() async throws {
        // A service that exports metrics, as the server's is: `/metrics` is one of the routes.
        let world = try await TestWorld.make(metrics: .prometheus(PrometheusCollectorRegistry()))
        let router = try buildRouter(features: world.service)
        // Hummingbird writes a captured parameter as {name}, as OpenAPI does. HEAD is generated for every GET when
        // the responder is built (after this), and the document says so once instead of per path.
        let routes = Set(router.routes.map { "\($0.method.rawValue) \($0.path.description)" })
        let documented = try Self.documentedOperations(Self.document())
        let undocumented = routes.subtracting(documented).sorted()
        let stale = documented.subtracting(routes).sorted()
        #expect(undocumented.isEmpty, "routes missing from WebFlows/api/openapi.json: \(undocumented)")
        #expect(stale.isEmpty, "operations in WebFlows/api/openapi.json that no route answers: \(stale)")
        #expect(routes.count > 30, "the router lists its routes (\(routes.count))")
    }

    @Test func theDocumentIsOpenAPI31AndEveryReferenceResolves() throws {
        let document = try Self.document()
        #expect((document["openapi"] as? String)?.hasPrefix("3.1.") == true)
        let text = try String(contentsOf: Self.documentURL, encoding: .utf8)
        let references = Set(text.matches(of: /"\$ref": "#\/([^"]+)"/).map { String($0.output.1) })
        #expect(!references.isEmpty)
        for reference in references.sorted() {
            var node: Any? = document
            for part in reference.split(separator: "/") { node = (node as? [String: Any])?[String(part)] }
            #expect(node != nil, "unresolved $ref #/\(reference)")
        }
    }

    @Test func theServiceServesTheDocument() async throws {
        try await withAPI { api, _ in
            let reply = try await api.get("/openapi.json")
            #expect(reply.status == .ok)
            #expect(reply.headers[.contentType] == "application/json; charset=utf-8")
            #expect(reply.text == (try String(contentsOf: Self.documentURL, encoding: .utf8)))
        }
    }

    @Test func aMissingDocumentStopsStartUpNamingTheFile() async throws {
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("capture-no-openapi-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: TestWorld.repositoryRoot.appendingPathComponent("WebFlows"), to: copy)
        defer { try? FileManager.default.removeItem(at: copy) }
        try FileManager.default.removeItem(at: copy.appendingPathComponent("api/openapi.json"))
        let world = try await TestWorld.make { $0.webFlowsDirectory = copy.path }
        let error = #expect(throws: SettingsError.self) { _ = try buildRouter(features: world.service) }
        #expect(error?.file.hasSuffix("api/openapi.json") == true)
    }
}
