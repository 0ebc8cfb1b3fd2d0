import CaptureCore
import CaptureTestSupport
import Foundation
import HTTPTypes
import Testing

/// A request whose database connection the server ends under it gets 503 with `Retry-After` in its contract's shape
/// (here the Capture API's), never a 500, and the next request is answered as usual.
@Suite struct DatabaseOutageReplyTests {
    /// What the tests read of a reply: status, `Retry-After` and the JSON body.
    struct Seen: Sendable {
        let status: HTTPResponse.Status
        let retryAfter: String?
        let text: String

        init(_ reply: Reply) {
            status = reply.status
            retryAfter = reply.headers[.retryAfter]
            text = reply.text
        }

        var json: [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]) ?? [:]
        }
    }

    /// In both passes (it makes its own PostgreSQL world either way), in the PostgreSQL one beside every other world
    /// on the same server.
    @Test func aLostConnectionIsA503WithRetryAfterNeverA500() async throws {
        try await withAPI(backend: .postgres) { api, world in
            guard case .postgres(let location) = world.storage.location else {
                Issue.record("a world made with backend: .postgres is on \(world.storage.location)")
                return
            }
            let grant = try #require(try await world.register("steady@example.com").grant)

            let entity = try await PostgresTestServer.shared.endingTheStatementOn("tokens", of: location) {
                Seen(try await api.post("/entity", ["access_token": grant.accessToken]))
            }.get()
            #expect(entity.status == .serviceUnavailable && entity.retryAfter == "2", "\(entity.text)")
            #expect(entity.json["stat"] as? String == "error" && entity.json["code"] as? Int == 503)
            #expect(entity.json["error"] as? String == "service_unavailable")

            // The next requests are answered as usual: the refresh token still works.
            #expect(try await api.post("/entity", ["access_token": grant.accessToken]).stat == "ok")
            let again = try await api.post(
                "/oauth/token",
                ["grant_type": "refresh_token", "refresh_token": grant.refreshToken, "client_id": "demo-mobile-app"])
            #expect(again.json["access_token"] is String, "\(again.json)")
        }
    }

    /// OpenID Connect's userinfo: a token that cannot be checked for a moment is a 503, not RFC 6750's
    /// `invalid_token` (a client would throw the token away and sign the person in again).
    @Test func userinfoDuringALostConnectionIsA503NotAnInvalidToken() async throws {
        try await withAPI(backend: .postgres) { api, world in
            guard case .postgres(let location) = world.storage.location else {
                Issue.record("a world made with backend: .postgres is on \(world.storage.location)")
                return
            }
            let grant = try #require(try await world.register("userinfo@example.com").grant)
            let bearer: HTTPFields = [.authorization: "Bearer \(grant.accessToken)"]
            let reply = try await PostgresTestServer.shared.endingTheStatementOn("tokens", of: location) {
                Seen(try await api.get("/oidc/userinfo", headers: bearer))
            }.get()
            #expect(reply.status == .serviceUnavailable && reply.retryAfter != nil, "\(reply.text)")
            // And once the database answers, the token is judged as usual (no openid scope: RFC 6750's 403).
            #expect(try await api.get("/oidc/userinfo", headers: bearer).status == .forbidden)
        }
    }

    /// The same while the server takes no new connection (restarting, or at its connection limit; here the role's
    /// `CONNECTION LIMIT 0`): the request is not kept waiting for one beyond `connect_timeout`, and the pool's own
    /// refusal is a 503 too. (It waited in postgres-nio's pool until its circuit breaker, a minute, then was a 500;
    /// with a connection of the pool still open, for as long as the server refused.) Once the server takes
    /// connections again, the pool connects again by itself (after its back-off, up to a minute) and requests are
    /// answered as usual; meanwhile each is a 503.
    @Test func aLostConnectionWhileTheServerTakesNoNewOneIsA503() async throws {
        let server = try await PostgresTestServer.shared.newDatabase()
        let role = "capture_full_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12).lowercased()
        try await PostgresTestServer.shared.execute("CREATE ROLE \(role) LOGIN PASSWORD 'full'", on: server)
        try await PostgresTestServer.shared.execute("ALTER DATABASE \(server.database) OWNER TO \(role)", on: server)
        var limited = server
        limited.user = role
        limited.password = "full"
        let database = TestStorage.connectionString(.postgres(limited))
        try await withAPI(backend: .postgres, configure: { $0.database = database }) { api, world in
            let grant = try #require(try await world.register("full@example.com").grant)
            try await PostgresTestServer.shared.execute("ALTER ROLE \(role) CONNECTION LIMIT 0", on: server)
            let entity = try await PostgresTestServer.shared.endingTheStatementOn("tokens", of: server) {
                Seen(try await api.post("/entity", ["access_token": grant.accessToken]))
            }.get()
            #expect(entity.status == .serviceUnavailable && entity.retryAfter == "2", "\(entity.text)")
            #expect(entity.json["error"] as? String == "service_unavailable")

            try await PostgresTestServer.shared.execute("ALTER ROLE \(role) CONNECTION LIMIT -1", on: server)
            var replies: [Seen] = []
            let deadline = ContinuousClock.now + .seconds(180)
            while ContinuousClock.now < deadline {
                let reply = Seen(try await api.post("/entity", ["access_token": grant.accessToken]))
                replies.append(reply)
                if reply.status == .ok { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(replies.last?.status == .ok, "no answer as usual within 3 minutes: \(replies.last?.text ?? "")")
            #expect(replies.dropLast().allSatisfy { $0.status == .serviceUnavailable }, "\(replies.map(\.status))")
        }
    }
}
