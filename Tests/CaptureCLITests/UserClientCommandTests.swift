import CaptureCore
import CaptureStore
import CaptureTestSupport
import Foundation
import GRDB
import Testing

@Suite("capturectl user")
struct UserCommandTests {
    @Test("user list and user show by email and by id", arguments: CLIMode.allCases)
    func listAndShow(mode: CLIMode) async throws {
        let world = try await TestWorld.current()
        let cli = CLISession(world, mode)
        let auth = try await world.register("a@example.com")

        let list = try await cli.run(["user", "list"])
        #expect(list.status == 0, "\(list.stderr)")
        #expect(list.stdout.contains("EMAIL"))
        #expect(list.stdout.contains("a@example.com"))

        let byEmail = try await cli.run(["user", "show", "A@Example.com"])
        #expect(byEmail.status == 0, "\(byEmail.stderr)")
        #expect(byEmail.stdout.contains(auth.user.id))
        #expect(byEmail.stdout.contains("a@example.com"))
        #expect(!byEmail.stdout.contains(try #require(auth.user.passwordHash)))

        let byID = try await cli.run(["user", "show", auth.user.id, "--json"])
        let object = try byID.object()
        #expect(object["email"] as? String == "a@example.com")
        #expect(object["state"] as? String == "active")
        #expect((object["linked_accounts"] as? [Any])?.isEmpty == true)
        #expect(byEmail.stdout.contains("linked_accounts") && byEmail.stdout.contains(" -"))

        // A linked provider account (social sign-in) is listed, never anything secret about it.
        try await world.service.store.identities.link(
            LinkedIdentity(provider: "example", subject: "1234", userID: auth.user.id, email: "a@id.example", linkedAt: Date()))
        let linked = try await cli.run(["user", "show", "a@example.com"])
        #expect(linked.stdout.contains("example:1234 (a@id.example, linked "))
        let linkedJSON = try await cli.run(["user", "show", "a@example.com", "--json"]).object()
        let accounts = try #require(linkedJSON["linked_accounts"] as? [[String: Any]])
        #expect(
            accounts.count == 1 && accounts[0]["provider"] as? String == "example"
                && accounts[0]["identifier"] as? String == "example:1234")
    }

    @Test("user disable revokes access at once; enable lets the user back in", arguments: CLIMode.allCases)
    func disableAndEnable(mode: CLIMode) async throws {
        let world = try await TestWorld.current()
        let cli = CLISession(world, mode)
        let auth = try await world.register("a@example.com")

        let disabled = try await cli.run(["user", "disable", "a@example.com"])
        #expect(disabled.status == 0, "\(disabled.stderr)")
        #expect(disabled.stdout.contains("disabled"))
        let error = await #expect(throws: CaptureError.self) {
            try await world.service.authenticate(accessToken: auth.grant!.accessToken)
        }
        #expect(error == .invalidAccessToken || error == .accountDeactivated)
        let shown = try await cli.run(["user", "show", "a@example.com", "--json"])
        #expect(try shown.object()["state"] as? String == "disabled")

        let enabled = try await cli.run(["user", "enable", "a@example.com", "--json"])
        #expect(enabled.status == 0, "\(enabled.stderr)")
        #expect(try enabled.object()["state"] as? String == "active")
        let user = try await world.service.findUser("a@example.com")
        #expect(!user.isDisabled)
    }

    @Test("unknown users are 'not found' (exit 1)", arguments: CLIMode.allCases)
    func unknownUser(mode: CLIMode) async throws {
        let world = try await TestWorld.current()
        let cli = CLISession(world, mode)
        for verb in ["show", "disable", "enable"] {
            let result = try await cli.run(["user", verb, "nobody@example.com"])
            #expect(result.status == 1, "\(verb)")
            #expect(result.stderr.contains("not found"))
        }
        let revoke = try await cli.run(["token", "revoke", "--user", "nobody@example.com"])
        #expect(revoke.status == 1)
    }
}

@Suite("capturectl client")
struct ClientCommandTests {
    @Test("client add --confidential prints the secret once; client show never does", arguments: CLIMode.allCases)
    func addConfidential(mode: CLIMode) async throws {
        let world = try await TestWorld.current()
        let cli = CLISession(world, mode)
        let added = try await cli.run(
            [
                "client", "add", "backend-one", "--name", "Backend", "--confidential", "--redirect-uri",
                "https://app.example.com/cb", "--origin", "https://app.example.com", "--response-type", "code", "--json",
            ])
        #expect(added.status == 0, "\(added.stderr)")
        let object = try added.object()
        let secret = try #require(object["client_secret"] as? String)
        #expect(secret.count >= 20)
        #expect((object["note"] as? String)?.contains("only") == true)
        #expect(object["confidential"] as? Bool == true)

        let client = try await world.service.authenticateClient(id: "backend-one", secret: secret)
        #expect(client.redirectURIs == ["https://app.example.com/cb"])
        #expect(client.responseTypes == ["code"])

        let shown = try await cli.run(["client", "show", "backend-one"])
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.stdout.contains("confidential"))
        #expect(!shown.stdout.contains(secret))
        #expect(!shown.stdout.contains(try #require(client.secretHash)))
        let shownJSON = try await cli.run(["client", "show", "backend-one", "--json"])
        #expect(!shownJSON.stdout.contains(secret))
        #expect(!shownJSON.stdout.contains(try #require(client.secretHash)))

        let list = try await cli.run(["client", "list"])
        #expect(list.stdout.contains("backend-one"))
        #expect(list.stdout.contains("demo-mobile-app"))
        #expect(!list.stdout.contains(secret))

        let table = try await cli.run(["client", "add", "backend-two", "--confidential"])
        #expect(table.status == 0, "\(table.stderr)")
        #expect(table.stdout.contains("client_secret"))
        #expect(table.stdout.contains("only its hash is stored"))
    }

    /// Each command closes the database it opened, and what the WAL held is copied into the file first: a copy of
    /// the file alone, made after the command, holds what the command wrote.
    @Test func aCommandLeavesTheSQLiteFileWhole() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("closed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("capture.sqlite").path
        let added = try await CLI.run([
            "client", "add", "closed-app", "--db", path, "--settings", TestWorld.settingsDirectory.path,
        ])
        #expect(added.status == 0, "\(added.stderr)")
        let copy = directory.appendingPathComponent("copy.sqlite").path
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        let clients = try await DatabaseQueue(path: copy).read { db in
            try String.fetchAll(db, sql: "SELECT clientID FROM clients")
        }
        #expect(clients.contains("closed-app"))
    }

    @Test(
        "a public client has no secret; a duplicate is refused (exit 1), bad arguments are usage errors (exit 2)",
        arguments: CLIMode.allCases)
    func addPublicAndRefusals(mode: CLIMode) async throws {
        let world = try await TestWorld.current()
        let cli = CLISession(world, mode)
        let added = try await cli.run(["client", "add", "native-app", "--json"])
        #expect(added.status == 0, "\(added.stderr)")
        let object = try added.object()
        #expect(object["client_secret"] == nil)
        #expect(object["type"] as? String == "public")

        let duplicate = try await cli.run(["client", "add", "native-app"])
        #expect(duplicate.status == 1)
        #expect(duplicate.stderr.contains("already exists"))
        let badID = try await cli.run(["client", "add", "x"])
        #expect(badID.status == 2)
        #expect(badID.stderr.contains("client_id"))
        let badType = try await cli.run(["client", "add", "other-app", "--response-type", "password"])
        #expect(badType.status == 2)
        let badURI = try await cli.run(["client", "add", "other-app", "--redirect-uri", "javascript:alert(1)"])
        #expect(badURI.status == 2)
        let unknown = try await cli.run(["client", "show", "no-such-client"])
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("not found"))
    }
}

@Suite("capturectl flows and help")
struct FlowsAndHelpTests {
    @Test("flows list names the repository's flows")
    func list() async throws {
        let result = try await CLI.run(["flows", "list", "--settings", TestWorld.settingsDirectory.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("webViewSignIn"))
        #expect(result.stdout.contains("webViewSignIn.html"))
        #expect(result.stdout.contains("signInForm"))
        let json = try await CLI.run(["flows", "list", "--json", "--settings", TestWorld.settingsDirectory.path])
        let rows = try #require(try json.json() as? [[String: Any]])
        #expect(rows.contains { $0["name"] as? String == "webViewSignIn" })
    }

    @Test("schema show lists every attribute by path with its type and constraints")
    func schemaShow() async throws {
        let result = try await CLI.run(["schema", "show", "--settings", TestWorld.settingsDirectory.path])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map {
            $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        }
        #expect(lines.contains("uuid service read-only"))
        #expect(lines.contains("email email required, length 0–254, ≤ 254 bytes"))
        #expect(lines.contains("primaryAddress.city string length 0–64, ≤ 256 bytes"))
        #expect(lines.contains("photos#id.value string length 0–1000, ≤ 4000 bytes, pattern https://.+"))
        #expect(lines.contains("loyaltyPoints integer read-only, ≥ 0"))
        let json = try await CLI.run(["schema", "show", "--json", "--settings", TestWorld.settingsDirectory.path])
        let rows = try #require(try json.json() as? [[String: Any]])
        #expect(rows.contains { $0["path"] as? String == "statuses#id.statusCreated" && $0["type"] as? String == "dateTime" })
    }

    @Test("flows check: ok on the repository's Settings, the broken key on a bad copy")
    func check() async throws {
        let good = try await CLI.run(["flows", "check", "--settings", TestWorld.settingsDirectory.path])
        #expect(good.status == 0, "\(good.stderr)")
        #expect(good.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "ok")

        let manager = FileManager.default
        let broken = manager.temporaryDirectory.appendingPathComponent("capturectl-settings-\(UUID().uuidString)")
        try manager.createDirectory(at: broken, withIntermediateDirectories: true)
        defer { try? manager.removeItem(at: broken) }
        try manager.copyItem(
            at: TestWorld.settingsDirectory.appendingPathComponent("forms.json"),
            to: broken.appendingPathComponent("forms.json"))
        try manager.copyItem(
            at: TestWorld.settingsDirectory.appendingPathComponent("flows"), to: broken.appendingPathComponent("flows"))
        try Data(#"{"port": "x"}"#.utf8).write(to: broken.appendingPathComponent("service.json"))

        let bad = try await CLI.run(["flows", "check", "--settings", broken.path])
        #expect(bad.status == 1)
        #expect(bad.stderr.contains("service.json"))
        #expect(bad.stderr.contains("port"))
        #expect(!bad.stdout.contains("ok"))
    }

    @Test(
        "--help works on every command group",
        arguments: [
            [], ["token"], ["user"], ["client"], ["flows"], ["schema"],
            ["token", "revoke"], ["client", "add"],
        ])
    func help(_ path: [String]) async throws {
        let result = try await CLI.run(path + ["--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("USAGE"))
    }

    @Test("unknown commands and options are usage errors (exit 2)")
    func usageErrors() async throws {
        #expect(try await CLI.run(["token", "frobnicate"]).status == 2)
        #expect(try await CLI.run(["user", "list", "--limit", "many"]).status == 2)
        #expect(try await CLI.run(["token", "list", "--limit", "0"]).status == 2)
    }

    @Test("an empty database lists nothing; a missing one or a missing named settings directory is refused")
    func bareAndMissing() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("capturectl-bare-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let settings = TestWorld.settingsDirectory.path

        let missing = directory.appendingPathComponent("typo.sqlite").path
        let refused = try await CLI.run(["token", "list", "--db", missing, "--settings", settings])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("typo.sqlite"))
        #expect(!FileManager.default.fileExists(atPath: missing), "a mistyped --db must not create a database")

        let database = directory.appendingPathComponent("capture.sqlite").path
        try CaptureDatabase.open(path: database).close()
        let empty = try await CLI.run(["token", "list", "--json", "--db", database, "--settings", settings])
        #expect(empty.status == 0, "\(empty.stderr)")
        #expect((try empty.json() as? [Any])?.isEmpty == true)

        let noSettings = try await CLI.run([
            "token", "list", "--db", database, "--settings", directory.appendingPathComponent("nope").path,
        ])
        #expect(noSettings.status == 1)
        #expect(noSettings.stderr.contains("service.json"))
    }
}

@Suite("capturectl user delete, client remove and rotate-secret")
struct DestructiveCommandTests {
    @Test("user delete removes the user and their tokens at once", arguments: CLIMode.allCases)
    func deleteUser(mode: CLIMode) async throws {
        let world = try await TestWorld.current()
        let cli = CLISession(world, mode)
        let auth = try await world.register("gone@example.com")
        let deleted = try await cli.run(["user", "delete", "gone@example.com", "--json"])
        #expect(deleted.status == 0, "\(deleted.stderr)")
        #expect(try deleted.object()["deleted"] as? String == auth.user.id)
        await #expect(throws: CaptureError.invalidAccessToken) {
            try await world.service.entity(accessToken: auth.grant!.accessToken)
        }
        #expect(try await world.service.store.tokens.list(TokenFilter()).isEmpty)
        let again = try await cli.run(["user", "delete", "gone@example.com"])
        #expect(again.status == 1)
    }

    @Test("client remove revokes the client's tokens; Settings clients are refused", arguments: CLIMode.allCases)
    func removeClient(mode: CLIMode) async throws {
        let world = try await TestWorld.current()
        let cli = CLISession(world, mode)
        let added = try await cli.run(["client", "add", "short-lived", "--redirect-uri", "/flows/webViewSignIn"])
        #expect(added.status == 0, "\(added.stderr)")
        var fields = TestWorld.registration(email: "client@example.com")
        fields["client_id"] = "short-lived"
        let auth = try await world.service.register(FlowRequest(parameters: fields))

        let removed = try await cli.run(["client", "remove", "short-lived", "--json"])
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(try removed.object()["revoked"] as? Int == 2)
        await #expect(throws: CaptureError.invalidAccessToken) {
            try await world.service.entity(accessToken: auth.grant!.accessToken)
        }
        #expect(try await cli.run(["client", "show", "short-lived"]).status == 1)

        let pinned = try await cli.run(["client", "remove", "demo-mobile-app"])
        #expect(pinned.status == 1)
        #expect(pinned.stderr.contains("settings"))
    }

    @Test("client rotate-secret prints a new secret once; the old one stops working", arguments: CLIMode.allCases)
    func rotateSecret(mode: CLIMode) async throws {
        let world = try await TestWorld.current()
        let cli = CLISession(world, mode)
        let added = try await cli.run(["client", "add", "rotating", "--confidential", "--json"])
        let oldSecret = try #require(try added.object()["client_secret"] as? String)
        let rotated = try await cli.run(["client", "rotate-secret", "rotating", "--json"])
        #expect(rotated.status == 0, "\(rotated.stderr)")
        let newSecret = try #require(try rotated.object()["client_secret"] as? String)
        #expect(newSecret != oldSecret)
        _ = try await world.service.authenticateClient(id: "rotating", secret: newSecret)
        await #expect(throws: CaptureError.invalidClient) {
            try await world.service.authenticateClient(id: "rotating", secret: oldSecret)
        }
        let table = try await cli.run(["client", "rotate-secret", "rotating"])
        #expect(table.stdout.contains("only once"))

        _ = try await cli.run(["client", "add", "native-only"])
        let isPublic = try await cli.run(["client", "rotate-secret", "native-only"])
        #expect(isPublic.status == 1)
        #expect(isPublic.stderr.contains("public"))
    }

    @Test(
        "user sign-out revokes every token of the user; token revoke --client every token of a client",
        arguments: CLIMode.allCases)
    func signOutAndRevokeByClient(mode: CLIMode) async throws {
        let world = try await TestWorld.current()
        let cli = CLISession(world, mode)
        let a = try await world.register("out@example.com")
        try await world.register("stays@example.com")
        let signedOut = try await cli.run(["user", "sign-out", "out@example.com"])
        #expect(signedOut.status == 0, "\(signedOut.stderr)")
        #expect(signedOut.stdout.contains("signed out everywhere: revoked 2 tokens"))
        await #expect(throws: CaptureError.invalidAccessToken) {
            try await world.service.entity(accessToken: a.grant!.accessToken)
        }
        #expect(try await world.service.listTokens(state: .active).count == 2)
        #expect(try await cli.run(["user", "sign-out", "nobody@example.com"]).status == 1)

        let byClient = try await cli.run(["token", "revoke", "--client", "demo-mobile-app", "--json"])
        #expect(try byClient.object()["revoked"] as? Int == 2)
        #expect(try await world.service.listTokens(state: .active).isEmpty)
        #expect(try await cli.run(["token", "revoke", "--client", "no-such-app"]).status == 1)
        #expect(try await cli.run(["token", "revoke", "--client", "demo-mobile-app", "--user", "stays@example.com"]).status == 2)
    }

    @Test("client update changes only what it is given; Settings clients and bad values are refused", arguments: CLIMode.allCases)
    func updateClient(mode: CLIMode) async throws {
        let world = try await TestWorld.current()
        let cli = CLISession(world, mode)
        _ = try await cli.run([
            "client", "add", "changing", "--redirect-uri", "/flows/webViewSignIn", "--origin", "https://a.example",
        ])
        let updated = try await cli.run([
            "client", "update", "changing", "--name", "Renamed", "--response-type", "code", "--json",
        ])
        #expect(updated.status == 0, "\(updated.stderr)")
        let object = try updated.object()
        #expect(object["name"] as? String == "Renamed" && object["response_types"] as? [String] == ["code"])
        #expect(
            object["redirect_uris"] as? [String] == ["/flows/webViewSignIn"]
                && object["allowed_origins"] as? [String] == ["https://a.example"])
        let table = try await cli.run(["client", "update", "changing", "--legacy-token-url", "on"])
        #expect(table.status == 0 && table.stdout.contains("legacy_token_url") && table.stdout.contains("true"))
        #expect(try await world.service.findClient("changing").legacyTokenURL)
        let pinned = try await cli.run(["client", "update", "demo-mobile-app", "--name", "x"])
        #expect(pinned.status == 1 && pinned.stderr.contains("settings"))
        let nothing = try await cli.run(["client", "update", "changing"])
        #expect(nothing.status == 2, "\(nothing.stderr)")
        let badOrigin = try await cli.run(["client", "update", "changing", "--origin", "not an origin"])
        #expect(badOrigin.status == 2)
        #expect(try await cli.run(["client", "update", "nobody-here", "--name", "x"]).status == 1)
    }
}
