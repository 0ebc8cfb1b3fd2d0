import CaptureCore
import CaptureTestSupport
import Foundation
import Testing

@Suite("capturectl token")
struct TokenCommandTests {
    @Test("token list shows fingerprints, never a token or a full hash", arguments: CLIMode.allCases)
    func listShowsFingerprintsOnly(mode: CLIMode) async throws {
        let world = try await TestWorld.current()
        let cli = CLISession(world, mode)
        let auth = try await world.register("a@example.com")
        let records = try await world.service.admin.listTokens(user: "a@example.com")
        #expect(records.count == 2)

        let result = try await cli.run(["token", "list"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("ID"))
        for header in ["FINGERPRINT", "KIND", "USER", "CLIENT", "STATE", "ISSUED", "EXPIRES"] {
            #expect(result.stdout.contains(header))
        }
        #expect(result.stdout.contains("a@example.com"))
        #expect(result.stdout.contains("demo-mobile-app"))
        #expect(result.stdout.contains("active"))
        for record in records {
            #expect(result.stdout.contains(record.fingerprint))
            #expect(!result.stdout.contains(record.hash))
        }
        #expect(!result.stdout.contains(auth.grant!.accessToken))
        #expect(!result.stdout.contains(auth.grant!.refreshToken))
    }

    @Test("token list --json parses and holds no secret", arguments: CLIMode.allCases)
    func listJSON(mode: CLIMode) async throws {
        let world = try await TestWorld.current()
        let cli = CLISession(world, mode)
        let auth = try await world.register("a@example.com")
        try await world.register("b@example.com")
        let records = try await world.service.admin.listTokens(user: "a@example.com")

        let result = try await cli.run(["token", "list", "--user", "a@example.com", "--active", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let rows = try #require(try result.json() as? [[String: Any]])
        #expect(rows.count == 2)
        #expect(Set(rows.compactMap { $0["fingerprint"] as? String }) == Set(records.map(\.fingerprint)))
        #expect(rows.allSatisfy { $0["email"] as? String == "a@example.com" && $0["state"] as? String == "active" })
        for record in records { #expect(!result.stdout.contains(record.hash)) }
        #expect(!result.stdout.contains(auth.grant!.accessToken))

        let limited = try await cli.run(["token", "list", "--limit", "1", "--json"])
        #expect((try limited.json() as? [Any])?.count == 1)
        let byClient = try await cli.run(["token", "list", "--client", "demo-mobile-app", "--json"])
        #expect((try byClient.json() as? [Any])?.count == 4)
        let unknownClient = try await cli.run(["token", "list", "--client", "nobody-here", "--json"])
        #expect(unknownClient.status == 1)
        #expect(unknownClient.stderr.contains("not found"))
    }

    @Test("token show by fingerprint and by id", arguments: CLIMode.allCases)
    func show(mode: CLIMode) async throws {
        let world = try await TestWorld.current()
        let cli = CLISession(world, mode)
        try await world.register("a@example.com")
        let record = try #require(
            try await world.service.admin.listTokens(user: "a@example.com").first)

        let byFingerprint = try await cli.run(["token", "show", record.fingerprint])
        #expect(byFingerprint.status == 0, "\(byFingerprint.stderr)")
        let line = byFingerprint.stdout.split(separator: "\n").first { $0.hasPrefix("fingerprint:") }
        #expect(line?.hasSuffix(" \(record.fingerprint)") == true, "\(byFingerprint.stdout)")
        #expect(byFingerprint.stdout.contains("a@example.com"))
        #expect(!byFingerprint.stdout.contains(record.hash))

        let byID = try await cli.run(["token", "show", "\(try #require(record.id))", "--json"])
        #expect(byID.status == 0, "\(byID.stderr)")
        let object = try byID.object()
        #expect(object["fingerprint"] as? String == record.fingerprint)
        #expect(object["kind"] as? String == record.kind.rawValue)
        #expect(object["issued_at"] as? String != nil)
    }

    @Test("token revoke <fingerprint> takes effect immediately", arguments: CLIMode.allCases)
    func revokeByFingerprint(mode: CLIMode) async throws {
        let world = try await TestWorld.current()
        let cli = CLISession(world, mode)
        let auth = try await world.register("a@example.com")
        _ = try await world.service.profile.entity(accessToken: auth.grant!.accessToken)
        let (_, record) = try await world.service.accessTokens.authenticate(accessToken: auth.grant!.accessToken)

        let result = try await cli.run(["token", "revoke", record.fingerprint])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("revoked 1 token"))
        await #expect(throws: CaptureError.invalidAccessToken) {
            try await world.service.profile.entity(accessToken: auth.grant!.accessToken)
        }
        let shown = try await cli.run(["token", "show", record.fingerprint, "--json"])
        #expect(try shown.object()["state"] as? String == "revoked")
    }

    @Test("token revoke --user revokes every token of the user and no one else's", arguments: CLIMode.allCases)
    func revokeByUser(mode: CLIMode) async throws {
        let world = try await TestWorld.current()
        let cli = CLISession(world, mode)
        let a = try await world.register("a@example.com")
        let b = try await world.register("b@example.com")

        let result = try await cli.run(["token", "revoke", "--user", "A@example.com", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try result.object()["revoked"] as? Int == 2)
        await #expect(throws: CaptureError.invalidAccessToken) {
            try await world.service.profile.entity(accessToken: a.grant!.accessToken)
        }
        _ = try await world.service.profile.entity(accessToken: b.grant!.accessToken)
        await #expect(throws: CaptureError.self) {
            try await world.service.tokens.refresh(
                refreshToken: a.grant!.refreshToken, clientID: "demo-mobile-app", clientSecret: nil)
        }
    }

    @Test("token revoke needs exactly one of a reference and --user (usage error, exit 2)", arguments: CLIMode.allCases)
    func revokeUsage(mode: CLIMode) async throws {
        let world = try await TestWorld.current()
        let cli = CLISession(world, mode)
        try await world.register("a@example.com")
        let neither = try await cli.run(["token", "revoke"])
        #expect(neither.status == 2)
        #expect(!neither.stderr.isEmpty)
        let both = try await cli.run(["token", "revoke", "abcdef123456", "--user", "a@example.com"])
        #expect(both.status == 2)
        let notAReference = try await cli.run(["token", "show", "xyz"])
        #expect(notAReference.status == 2)
        #expect(notAReference.stderr.contains("fingerprint"))
        let tokens = try await world.service.admin.listTokens(state: .active)
        #expect(tokens.count == 2)
    }

    @Test("revoking a token that is already revoked is refused (exit 1)", arguments: CLIMode.allCases)
    func revokeTwice(mode: CLIMode) async throws {
        let world = try await TestWorld.current()
        let cli = CLISession(world, mode)
        try await world.register("twice@example.com")
        let access = try #require(
            try await world.service.admin.listTokens(user: "twice@example.com").first { $0.kind == .access })
        let first = try await cli.run(["token", "revoke", access.fingerprint])
        #expect(first.status == 0, "\(first.stderr)")
        let second = try await cli.run(["token", "revoke", access.fingerprint])
        #expect(second.status == 1)
        #expect(second.stderr.contains("already revoked"))
    }

    @Test(
        "token introspect: active, then {\"active\":false} and exit 1 after revocation; '-' reads stdin",
        arguments: CLIMode.allCases)
    func introspect(mode: CLIMode) async throws {
        let world = try await TestWorld.current()
        let cli = CLISession(world, mode)
        let auth = try await world.register("a@example.com")
        let token = auth.grant!.accessToken

        let active = try await cli.run(["token", "introspect", token, "--json"])
        #expect(active.status == 0, "\(active.stderr)")
        let object = try active.object()
        #expect(object["active"] as? Bool == true)
        #expect(object["username"] as? String == "a@example.com")
        #expect(object["sub"] as? String == auth.user.id)
        #expect(object["client_id"] as? String == "demo-mobile-app")
        #expect(object["token_type"] as? String == "Bearer")
        #expect(object["exp"] as? Int != nil && object["iat"] as? Int != nil)
        #expect(!active.stdout.contains(token))

        let viaStdin = try await cli.run(["token", "introspect", "-", "--json"], stdin: token + "\n")
        #expect(viaStdin.status == 0, "\(viaStdin.stderr)")
        #expect(try viaStdin.object()["username"] as? String == "a@example.com")

        let refresh = try await cli.run(["token", "introspect", auth.grant!.refreshToken, "--json"])
        #expect(try refresh.object()["token_type"] as? String == "refresh_token")

        let table = try await cli.run(["token", "introspect", "-"], stdin: token)
        #expect(table.status == 0)
        #expect(table.stdout.contains("active"))
        #expect(table.stdout.contains("a@example.com"))

        _ = try await world.service.admin.revokeTokens(ofUser: "a@example.com")
        let inactive = try await cli.run(["token", "introspect", token, "--json"])
        #expect(inactive.status == 1)
        #expect(inactive.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == #"{"active":false}"#)
        let inactiveStdin = try await cli.run(["token", "introspect", "-", "--json"], stdin: token)
        #expect(inactiveStdin.status == 1)
        #expect(try inactiveStdin.object()["active"] as? Bool == false)

        let unknown = try await cli.run(["token", "introspect", "not-a-token"])
        #expect(unknown.status == 1)
        #expect(unknown.stdout.contains("active: false"))
    }

    @Test("unknown tokens are 'not found' (exit 1 with a message)", arguments: CLIMode.allCases)
    func unknownToken(mode: CLIMode) async throws {
        let world = try await TestWorld.current()
        let cli = CLISession(world, mode)
        for arguments in [
            ["token", "show", "abcdef0123"], ["token", "revoke", "abcdef0123"], ["token", "show", "999999"],
            ["token", "list", "--user", "nobody@example.com"],
        ] {
            let result = try await cli.run(arguments)
            #expect(result.status == 1, "\(arguments)")
            #expect(result.stderr.contains("not found"), "\(arguments): \(result.stderr)")
        }
    }

    @Test("token purge-expired deletes only expired tokens", arguments: CLIMode.allCases)
    func purgeExpired(mode: CLIMode) async throws {
        let world = try await TestWorld.current()
        let cli = CLISession(world, mode)
        try await world.register("a@example.com")
        let result = try await cli.run(["token", "purge-expired", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try result.object()["purged"] as? Int == 0)
        #expect(try await world.service.admin.listTokens().count == 2)
    }
}
