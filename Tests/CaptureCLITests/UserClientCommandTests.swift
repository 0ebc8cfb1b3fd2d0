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

    @Test("user find takes Janrain's filters, in the database, on both consoles", arguments: CLIMode.allCases)
    func findByFilter(mode: CLIMode) async throws {
        let world = try await TestWorld.current()
        let cli = CLISession(world, mode)
        for name in ["paris", "lyon", "paris-too"] { try await world.register("\(name)@example.com") }
        let found = try await cli.run([
            "user", "find", "--filter", "email = 'paris@example.com' or email = 'paris-too@example.com'",
        ])
        #expect(found.status == 0, "\(found.stderr)")
        #expect(found.stdout.contains("paris@example.com") && found.stdout.contains("paris-too@example.com"))
        #expect(!found.stdout.contains("lyon@example.com"))
        let broken = try await cli.run(["user", "find", "--filter", "email = 'unclosed"])
        #expect(broken.status == 2 && broken.stderr.contains("position"), "a bad filter is a usage error: \(broken.stderr)")
    }

    @Test("user export prints everything kept about the user as one document", arguments: CLIMode.allCases)
    func export(mode: CLIMode) async throws {
        let world = try await TestWorld.current()
        let cli = CLISession(world, mode)
        let auth = try await world.register("asks@example.com")
        let export = try await cli.run(["user", "export", "asks@example.com"])
        #expect(export.status == 0, "\(export.stderr)")
        let document = try export.object()
        #expect(document["format"] as? String == AccountExport.currentFormat)
        #expect((document["record"] as? [String: Any])?["uuid"] as? String == auth.user.id)
        #expect((document["sessions"] as? [Any])?.count == 1)
        #expect(!export.stdout.contains(try #require(auth.user.passwordHash)))
        let actions = try await world.service.audit.auditLog(AuditFilter(target: "asks@example.com")).map(\.action)
        #expect(actions == ["user.export"])
        #expect(try await cli.run(["user", "export", "nobody@example.com"]).status == 1)
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
            try await world.service.accessTokens.authenticate(accessToken: auth.grant!.accessToken)
        }
        #expect(error == .invalidAccessToken || error == .accountDeactivated)
        let shown = try await cli.run(["user", "show", "a@example.com", "--json"])
        #expect(try shown.object()["state"] as? String == "disabled")

        let enabled = try await cli.run(["user", "enable", "a@example.com", "--json"])
        #expect(enabled.status == 0, "\(enabled.stderr)")
        #expect(try enabled.object()["state"] as? String == "active")
        let user = try await world.service.admin.findUser("a@example.com")
        #expect(!user.isDisabled)
    }

    @Test("user reset-factors removes passkeys and the second factor, audited", arguments: CLIMode.allCases)
    func resetFactors(mode: CLIMode) async throws {
        let world = try await TestWorld.current()
        let cli = CLISession(world, mode)
        let auth = try await world.register("a@example.com")
        let now = world.time.now()
        try await world.service.store.passkeys.insert(
            Passkey(
                credentialID: "AAEC", userID: auth.user.id, name: "Phone", publicKey: [1], signCount: 0,
                backupEligible: true, backedUp: true, transports: [], createdAt: now))
        try await world.service.store.secondFactors.save(
            SecondFactor(userID: auth.user.id, sealedSecret: "sealed", recoveryHashes: ["h"], createdAt: now))

        let reset = try await cli.run(["user", "reset-factors", "a@example.com", "--json"])
        #expect(reset.status == 0, "\(reset.stderr)")
        let view = try reset.object()
        #expect(view["passkeys_removed"] as? Int == 1 && view["second_factor_removed"] as? Bool == true)
        #expect(try await world.service.store.passkeys.list(userID: auth.user.id).isEmpty)
        #expect(try await world.service.store.secondFactors.find(userID: auth.user.id) == nil)
        let audit = try await world.service.audit.auditLog(AuditFilter(action: "user.reset_factors"))
        #expect(audit.first?.target == "a@example.com" && audit.first?.outcome == "success")
        let again = try await cli.run(["user", "reset-factors", "a@example.com"])
        #expect(again.status == 0 && again.stdout.contains("removed 0 passkeys"), "\(again.stdout)")
    }

    @Test("unknown users are 'not found' (exit 1)", arguments: CLIMode.allCases)
    func unknownUser(mode: CLIMode) async throws {
        let world = try await TestWorld.current()
        let cli = CLISession(world, mode)
        for verb in ["show", "disable", "enable", "reset-factors"] {
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
    /// Issue 49: Janrain's site_name, verify_email_url and password_recover_url, for a client added at run time.
    @Test("client add and update set and clear the client's pages", arguments: CLIMode.allCases)
    func pages(mode: CLIMode) async throws {
        let world = try await TestWorld.current()
        let cli = CLISession(world, mode)
        let added = try await cli.run([
            "client", "add", "orchard-web", "--origin", "https://orchard.example", "--site-name", "Orchard",
            "--password-recover-url", "https://orchard.example/account", "--verify-email-url", "https://orchard.example/v",
            "--json",
        ])
        #expect(added.status == 0, "\(added.stderr)")
        #expect(try added.object()["password_recover_url"] as? String == "https://orchard.example/account")
        let refused = try await cli.run(["client", "update", "orchard-web", "--verify-email-url", "https://elsewhere.example/v"])
        #expect(refused.status == 2 && refused.stderr.contains("origins"), "\(refused.stderr)")
        let cleared = try await cli.run(["client", "update", "orchard-web", "--verify-email-url", ""])
        #expect(cleared.status == 0, "\(cleared.stderr)")
        let stored = try await world.service.clientAdmin.ownPages(of: "orchard-web")
        #expect(stored.verifyEmailURL == nil && stored.passwordRecoverURL == "https://orchard.example/account")
        #expect(stored.siteName == "Orchard")
    }

    /// Issue 51: Janrain's client features and IP whitelist, set by add and update, shown by show and list.
    @Test("client add and update take --feature and --whitelist", arguments: CLIMode.allCases)
    func featuresAndWhitelist(mode: CLIMode) async throws {
        let world = try await TestWorld.current()
        let cli = CLISession(world, mode)
        let added = try await cli.run([
            "client", "add", "crm-sync", "--confidential", "--feature", "direct_access", "--feature", "access_issuer",
            "--whitelist", "192.0.2.0/24", "--json",
        ])
        #expect(added.status == 0, "\(added.stderr)")
        #expect(try added.object()["features"] as? [String] == ["access_issuer", "direct_access"])
        #expect(try added.object()["whitelist"] as? [String] == ["192.0.2.0/24"])
        let plain = try await cli.run(["client", "add", "plain-app"])
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(try await world.service.store.clients.find(id: "plain-app")?.features == [.loginClient])

        let refused = try await cli.run(["client", "update", "crm-sync", "--feature", "root"])
        #expect(refused.status != 0 && refused.stderr.contains("feature"), "\(refused.stderr)")
        let badRange = try await cli.run(["client", "update", "crm-sync", "--whitelist", "example.com"])
        #expect(badRange.status != 0 && badRange.stderr.contains("CIDR"), "\(badRange.stderr)")

        let updated = try await cli.run(["client", "update", "crm-sync", "--feature", "owner", "--whitelist", ""])
        #expect(updated.status == 0, "\(updated.stderr)")
        let stored = try #require(try await world.service.store.clients.find(id: "crm-sync"))
        #expect(stored.features == [.owner] && stored.whitelist.isEmpty)
        let shown = try await cli.run(["client", "show", "crm-sync"])
        #expect(shown.stdout.contains("features") && shown.stdout.contains("owner"), "\(shown.stdout)")
        let listed = try await cli.run(["client", "list"])
        #expect(listed.stdout.contains("FEATURES") && listed.stdout.contains("login_client"), "\(listed.stdout)")
    }

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

        let client = try await world.service.clients.authenticateClient(id: "backend-one", secret: secret)
        #expect(client.redirectURIs == ["https://app.example.com/cb"])
        #expect(client.responseTypes == [.code])

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
