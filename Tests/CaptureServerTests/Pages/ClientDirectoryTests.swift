import CaptureCore
import CaptureServer
import CaptureStorage
import CaptureStore
import CaptureTestSupport
import Foundation
import GRDB
import Prometheus
import Testing

/// Token checks read once: the token, its user and the clients' version in one transaction, the client from the
/// directory. A client changed anywhere (this process, another connection, another process) is read afresh on the
/// very next request.
@Suite struct ClientDirectoryTests {
    /// Database calls recorded so far, by repository and operation.
    static func calls(_ registry: PrometheusCollectorRegistry) -> [String: Double] {
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        var calls: [String: Double] = [:]
        for line in MetricsTests.samples(String(decoding: buffer, as: UTF8.self), "capture_db_call_duration_seconds_count") {
            let labels = line.split(separator: "{").last?.split(separator: "}").first.map(String.init) ?? ""
            calls[labels] = line.split(separator: " ").last.flatMap { Double($0) }
        }
        return calls
    }

    /// What changed between two readings: the calls made in between, by label set.
    static func delta(_ before: [String: Double], _ after: [String: Double]) -> [String: Double] {
        var made: [String: Double] = [:]
        for (labels, count) in after where before[labels] != count {
            made[labels] = count - (before[labels] ?? 0)
        }
        return made
    }

    /// On PostgreSQL a warm check is one read; on SQLite, an active token's check is kept (`TokenCheckCache`) and a
    /// warm one reads nothing at all.
    @Test func introspectionAndVerifyReadOnceWhenTheirClientIsKnown() async throws {
        try await withOperationsAPI { api, world, registry in
            let (_, secret) = try await world.service.clientAdmin.addClient(
                id: "reads-once", name: nil, confidential: true, redirectURIs: [], allowedOrigins: ["https://app.example"],
                responseTypes: ["token"], legacyTokenURL: false)
            let token = try await world.registerProven("once@example.com").grant!.accessToken
            let form = ["token": token, "client_id": "reads-once", "client_secret": try #require(secret)]
            let expectedReads: Double = world.storage.sqlite == nil ? 1 : 0
            #expect(try await api.post("/oauth/introspect", form)["active"] as? Bool == true)
            let before = Self.calls(registry)
            #expect(try await api.post("/oauth/introspect", form)["active"] as? Bool == true)
            let introspection = Self.delta(before, Self.calls(registry))
            #expect(introspection.values.reduce(0, +) == expectedReads, "\(introspection)")
            #expect(introspection.keys.allSatisfy { $0.contains(#"repository="tokens""#) }, "\(introspection)")

            _ = try await api.post("/verify", ["assertion": token, "audience": "http://127.0.0.1:8080"])
            let warm = Self.calls(registry)
            #expect(
                try await api.post("/verify", ["assertion": token, "audience": "http://127.0.0.1:8080"])["status"] as? String
                    == "okay")
            let verify = Self.delta(warm, Self.calls(registry))
            #expect(verify.values.reduce(0, +) == expectedReads, "\(verify)")
            #expect(verify.keys.allSatisfy { $0.contains(#"repository="tokens""#) }, "\(verify)")
        }
    }

    /// A flow page's link is checked once per clients version: a warm page reads only the version; a changed client
    /// is checked again on the next request, and a page it no longer lists is refused.
    @Test func aWarmFlowPageReadsOnlyTheClientsVersion() async throws {
        try await withOperationsAPI { api, world, registry in
            _ = try await world.service.clientAdmin.addClient(
                id: "paged", name: nil, confidential: false, redirectURIs: ["/flows/webViewSignIn"], allowedOrigins: [],
                responseTypes: ["token"], legacyTokenURL: false)
            let path = "/flows/webViewSignIn?client_id=paged"
            #expect(try await api.get(path).status == .ok)
            let before = Self.calls(registry)
            let warm = try await api.get(path)
            #expect(warm.status == .ok && warm.headers[.eTag] != nil)
            let page = Self.delta(before, Self.calls(registry))
            #expect(page.count == 1 && page.keys.first?.contains(#"operation="version()""#) == true, "\(page)")
            #expect(page.values.first == 1)

            // Changed through another store on the same database, as capturectl or another instance would.
            let other = try await OpenedStorage.open(try DatabaseLocation(world.database))
            var client = try #require(try await other.repositories.clients.find(id: "paged"))
            client.redirectURIs = ["/flows/webViewProfile"]
            try await other.repositories.clients.upsert(client)
            try await other.close()
            #expect(try await api.get(path).status == .badRequest)
        }
    }

    @Test func aClientChangedThroughAnotherConnectionIsReadAfreshOnTheNextRequest() async throws {
        let world = try await TestWorld.make(backend: .sqlite)
        let (_, secret) = try await world.service.clientAdmin.addClient(
            id: "rotating-backend", name: nil, confidential: true, redirectURIs: [], allowedOrigins: [],
            responseTypes: ["token"], legacyTokenURL: false)
        let token = try await world.register("fresh@example.com").grant!.accessToken
        _ = try await world.service.tokens.introspect(token: token, clientID: "rotating-backend", clientSecret: secret)
        // Another connection (as capturectl or another instance would): the secret's hash replaced behind the
        // service's back, and the client removed after that.
        let queue = try CaptureDatabase.open(path: world.database)
        try await queue.write { db in
            try db.execute(
                sql: "UPDATE clients SET secretHash = ? WHERE clientID = 'rotating-backend'", arguments: [TokenMinter.hash("new")]
            )
        }
        await #expect(throws: CaptureError.invalidClient) {
            try await world.service.tokens.introspect(token: token, clientID: "rotating-backend", clientSecret: secret)
        }
        #expect(try await world.service.tokens.introspect(token: token, clientID: "rotating-backend", clientSecret: "new") != nil)
        try await queue.write { db in try db.execute(sql: "DELETE FROM clients WHERE clientID = 'rotating-backend'") }
        await #expect(throws: CaptureError.invalidClient) {
            try await world.service.tokens.introspect(token: token, clientID: "rotating-backend", clientSecret: "new")
        }
        try queue.close()
    }

    @Test func theDirectoryIsBoundedAndStartsOverOnANewVersion() async throws {
        let directory = ClientDirectory()
        let client = Client(clientID: "c", name: "c", createdAt: Date())
        var loads = 0
        _ = try await directory.client("c", version: 1) {
            loads += 1; return client
        }
        _ = try await directory.client("c", version: 1) {
            loads += 1; return client
        }
        #expect(loads == 1)
        _ = try await directory.client("c", version: 2) {
            loads += 1; return client
        }
        #expect(loads == 2)
        #expect(try await directory.client("missing", version: 2) { nil } == nil)
        for index in 0..<(ClientDirectory.capacity + 10) {
            _ = try await directory.client("c\(index)", version: 2) {
                Client(clientID: "c\(index)", name: "x", createdAt: Date())
            }
        }
        _ = try await directory.client("c", version: 2) {
            loads += 1; return client
        }
        #expect(loads == 3, "a full directory started over")
    }
}
