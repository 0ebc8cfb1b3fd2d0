import CaptureCore
import CaptureOutbound
import CaptureTestSupport
import Foundation
import Testing

@Suite("capturectl admin-key and audit")
struct AdminKeyAuditTests {
    @Test("admin-key add prints the key once; list never shows it; revoke stops it at the server")
    func adminKeys() async throws {
        let world = try await TestWorld.current()
        let added = try await CLI.run(["admin-key", "add", "support tool", "--json"], in: world)
        #expect(added.status == 0, "\(added.stderr)")
        let object = try added.object()
        let key = try #require(object["key"] as? String)
        let id = try #require(object["id"] as? String)
        #expect(key.hasPrefix("cbk_\(id)_"))

        let list = try await CLI.run(["admin-key", "list"], in: world)
        #expect(
            list.status == 0 && list.stdout.contains(id) && list.stdout.contains("support tool") && !list.stdout.contains(key))
        let stored = try #require(try await world.service.admin.listAdminKeys().first)
        #expect(!list.stdout.contains(stored.secretHash))

        // The key works over the admin API until it is revoked.
        let server = try await CLIServer(world: world)
        defer { server.stop() }
        let remote = ["--server", server.url]
        let before = try await CLI.run(["user", "list", "--json"] + remote, environment: ["CAPTURE_ADMIN_KEY": key])
        #expect(before.status == 0, "\(before.stderr)")
        let revoked = try await CLI.run(["admin-key", "revoke", id], in: world)
        #expect(revoked.status == 0 && revoked.stdout.contains("revoked admin key \(id)"))
        let after = try await CLI.run(["user", "list"] + remote, environment: ["CAPTURE_ADMIN_KEY": key])
        #expect(after.status == 1 && after.stderr.contains("refused the admin key"), "\(after.stderr)")
        let again = try await CLI.run(["admin-key", "revoke", id], in: world)
        #expect(again.status == 1)

        // Who did it: the operating-system user at capturectl.
        let audit = try await CLI.run(["audit", "list", "--action", "admin_key.revoke", "--json"], in: world)
        let rows = try #require(try audit.json() as? [[String: Any]])
        #expect(rows.map { $0["outcome"] as? String } == ["record_not_found", "success"])
        #expect(rows.allSatisfy { ($0["actor"] as? String)?.hasPrefix("capturectl:") == true && $0["target"] as? String == id })
        #expect(!audit.stdout.contains(key))
    }

    @Test("audit list reads the same rows on the file and over the admin API", arguments: CLIMode.allCases)
    func auditList(mode: CLIMode) async throws {
        let world = try await TestWorld.current()
        let cli = CLISession(world, mode)
        try await world.register("audited@example.com")
        let disabled = try await cli.run(["user", "disable", "audited@example.com"])
        #expect(disabled.status == 0, "\(disabled.stderr)")
        let table = try await cli.run(["audit", "list", "--action", "user.disable"])
        #expect(table.status == 0 && table.stdout.hasPrefix("ID"), "\(table.stderr)")
        #expect(
            table.stdout.contains("user.disable") && table.stdout.contains("audited@example.com")
                && table.stdout.contains("success"))
        let json = try await cli.run(["audit", "list", "--target", "audited@example.com", "--json"])
        let rows = try #require(try json.json() as? [[String: Any]])
        #expect(rows.count == 1)
        #expect((rows.first?["actor"] as? String)?.hasPrefix(mode == .direct ? "capturectl:" : "admin-key:") == true)
        let paged = try await cli.run(["audit", "list", "--limit", "1", "--offset", "5", "--json"])
        #expect(try paged.json() as? [Any] != nil)
    }

    @Test("--server: commands that need the file refuse it; a bad URL or a missing key is a usage error")
    func remoteRefusals() async throws {
        let world = try await TestWorld.current()
        for command in [["admin-key", "list"], ["mail", "list"], ["schema", "show"], ["flows", "list"]] {
            let result = try await CLI.run(command + ["--server", "http://127.0.0.1:1"], in: world)
            #expect(result.status == 2, "\(command): \(result.stderr)")
            #expect(result.stderr.contains("no --server mode"))
        }
        let plain = try await CLI.run(
            ["user", "list", "--server", "http://capture.example.com"], environment: ["CAPTURE_ADMIN_KEY": "k"])
        #expect(plain.status == 2 && plain.stderr.contains("https"))
        let keyless = try await CLI.run(["user", "list", "--server", "https://capture.example.com"])
        #expect(keyless.status == 2 && keyless.stderr.contains("CAPTURE_ADMIN_KEY"))
        let unreachable = try await CLI.run(
            ["user", "list", "--server", "http://127.0.0.1:1"], environment: ["CAPTURE_ADMIN_KEY": "k"])
        #expect(unreachable.status == 1 && unreachable.stderr.contains("cannot reach"))
    }
}

@Suite("capturectl in another process and the server's caches")
struct CrossProcessChangeTests {
    @Test("a secret rotated by capturectl is refused by the running service on the very next request")
    func rotatedSecretIsRefusedAtOnce() async throws {
        let world = try await TestWorld.current()
        let added = try await CLI.run(["client", "add", "cached-backend", "--confidential", "--json"], in: world)
        let old = try #require(try added.object()["client_secret"] as? String)
        let token = try await world.register("cached@example.com").grant!.accessToken
        #expect(try await world.service.tokens.introspect(token: token, clientID: "cached-backend", clientSecret: old) != nil)
        let rotated = try await CLI.run(["client", "rotate-secret", "cached-backend", "--json"], in: world)
        let new = try #require(try rotated.object()["client_secret"] as? String)
        await #expect(throws: CaptureError.invalidClient) {
            try await world.service.tokens.introspect(token: token, clientID: "cached-backend", clientSecret: old)
        }
        #expect(try await world.service.tokens.introspect(token: token, clientID: "cached-backend", clientSecret: new) != nil)
        // A token revoked from another process is refused on the next check too, though its check was kept.
        #expect(try await CLI.run(["token", "revoke", "--user", "cached@example.com"], in: world).status == 0)
        #expect(try await world.service.tokens.introspect(token: token, clientID: "cached-backend", clientSecret: new) == nil)
    }

    /// The running server keeps rendered flow pages (ETag, 304); a client changed or removed by capturectl in another
    /// process changes or refuses the page on the very next request, and a token revoked there is refused at once.
    @Test("flow pages and token checks of a running server follow changes made by capturectl in another process")
    func pagesAndTokenChecksFollowOtherProcesses() async throws {
        let world = try await TestWorld.current()
        let added = try await CLI.run(
            ["client", "add", "paged-app", "--redirect-uri", "/flows/webViewSignIn"], in: world)
        #expect(added.status == 0, "\(added.stderr)")
        let server = try await CLIServer(world: world)
        defer { server.stop() }
        let http = OutboundHTTPClient()
        func get(_ path: String, ifNoneMatch: String? = nil) async throws -> OutboundHTTPResponse {
            try await http.send(
                OutboundHTTPRequest(
                    url: server.url + path,
                    headers: ifNoneMatch.map { [OutboundHTTPHeader(name: "If-None-Match", value: $0)] } ?? [],
                    allowsPlainHTTP: true))
        }
        let path = "/flows/webViewSignIn?client_id=paged-app"
        let first = try await get(path)
        #expect(first.status == 200)
        // Rendered pages vary by language, and by encoding once they are big enough to be sent compressed.
        #expect(first.header("Cache-Control") == "no-cache")
        #expect(first.header("Vary") == "Accept-Language, Accept-Encoding")
        let etag = try #require(first.header("ETag"))
        #expect(String(decoding: first.body, as: UTF8.self).contains(#""legacyTokenUrl":false"#))
        #expect(try await get(path, ifNoneMatch: etag).status == 304)

        #expect(try await CLI.run(["client", "update", "paged-app", "--legacy-token-url", "on"], in: world).status == 0)
        let changed = try await get(path, ifNoneMatch: etag)
        #expect(changed.status == 200 && changed.header("ETag") != etag)
        #expect(String(decoding: changed.body, as: UTF8.self).contains(#""legacyTokenUrl":true"#))

        #expect(try await CLI.run(["client", "remove", "paged-app"], in: world).status == 0)
        let removed = try await get(path, ifNoneMatch: changed.header("ETag"))
        #expect(removed.status == 400 && String(decoding: removed.body, as: UTF8.self).contains("not registered"))

        let token = try await world.registerProven("paged@example.com").grant!.accessToken
        func post(_ path: String, _ form: String) async throws -> String {
            let reply = try await http.send(
                OutboundHTTPRequest(
                    method: .post, url: server.url + path,
                    headers: [OutboundHTTPHeader(name: "Content-Type", value: "application/x-www-form-urlencoded")],
                    body: Data(form.utf8), allowsPlainHTTP: true))
            return String(decoding: reply.body, as: UTF8.self)
        }
        func entity() async throws -> String { try await post("/entity", "access_token=\(token)") }
        func verify() async throws -> String {
            try await post("/verify", "assertion=\(token)&audience=http%3A%2F%2Fandroid.library")
        }
        #expect(try await entity().contains(#""stat":"ok""#))
        // /verify's check is kept in memory by the server (on SQLite) after the first: the second answers from there.
        #expect(try await verify().contains(#""status":"okay""#))
        #expect(try await verify().contains(#""status":"okay""#))
        #expect(try await CLI.run(["token", "revoke", "--user", "paged@example.com"], in: world).status == 0)
        #expect(try await entity().contains(#""stat":"error""#))
        #expect(try await verify().contains(#""status":"failure""#))
    }
}
