import CaptureCore
import CaptureTestSupport
import Foundation
import Testing

@Suite("capturectl token")
struct TokenCommandTests {
    @Test("token list shows fingerprints, never a token or a full hash")
    func listShowsFingerprintsOnly() async throws {
        let world = try await TestWorld.current()
        let auth = try await world.register("a@example.com")
        let records = try await world.service.listTokens(user: "a@example.com", client: nil, activeOnly: false)
        #expect(records.count == 2)

        let result = try await CLI.run(["token", "list"], in: world)
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

    @Test("token list --json parses and holds no secret")
    func listJSON() async throws {
        let world = try await TestWorld.current()
        let auth = try await world.register("a@example.com")
        try await world.register("b@example.com")
        let records = try await world.service.listTokens(user: "a@example.com", client: nil, activeOnly: false)

        let result = try await CLI.run(["token", "list", "--user", "a@example.com", "--active", "--json"], in: world)
        #expect(result.status == 0, "\(result.stderr)")
        let rows = try #require(try result.json() as? [[String: Any]])
        #expect(rows.count == 2)
        #expect(Set(rows.compactMap { $0["fingerprint"] as? String }) == Set(records.map(\.fingerprint)))
        #expect(rows.allSatisfy { $0["email"] as? String == "a@example.com" && $0["state"] as? String == "active" })
        for record in records { #expect(!result.stdout.contains(record.hash)) }
        #expect(!result.stdout.contains(auth.grant!.accessToken))

        let limited = try await CLI.run(["token", "list", "--limit", "1", "--json"], in: world)
        #expect((try limited.json() as? [Any])?.count == 1)
        let byClient = try await CLI.run(["token", "list", "--client", "demo-mobile-app", "--json"], in: world)
        #expect((try byClient.json() as? [Any])?.count == 4)
        let unknownClient = try await CLI.run(["token", "list", "--client", "nobody-here", "--json"], in: world)
        #expect(unknownClient.status == 1)
        #expect(unknownClient.stderr.contains("not found"))
    }

    @Test("token show by fingerprint and by id")
    func show() async throws {
        let world = try await TestWorld.current()
        try await world.register("a@example.com")
        let record = try #require(
            try await world.service.listTokens(user: "a@example.com", client: nil, activeOnly: false).first)

        let byFingerprint = try await CLI.run(["token", "show", record.fingerprint], in: world)
        #expect(byFingerprint.status == 0, "\(byFingerprint.stderr)")
        #expect(byFingerprint.stdout.contains("fingerprint: \(record.fingerprint)"))
        #expect(byFingerprint.stdout.contains("a@example.com"))
        #expect(!byFingerprint.stdout.contains(record.hash))

        let byID = try await CLI.run(["token", "show", "\(try #require(record.id))", "--json"], in: world)
        #expect(byID.status == 0, "\(byID.stderr)")
        let object = try byID.object()
        #expect(object["fingerprint"] as? String == record.fingerprint)
        #expect(object["kind"] as? String == record.kind.rawValue)
        #expect(object["issued_at"] as? String != nil)
    }

    @Test("token revoke <fingerprint> takes effect immediately")
    func revokeByFingerprint() async throws {
        let world = try await TestWorld.current()
        let auth = try await world.register("a@example.com")
        _ = try await world.service.entity(accessToken: auth.grant!.accessToken)
        let (_, record) = try await world.service.authenticate(accessToken: auth.grant!.accessToken)

        let result = try await CLI.run(["token", "revoke", record.fingerprint], in: world)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("revoked 1 token"))
        await #expect(throws: CaptureError.invalidAccessToken) {
            try await world.service.entity(accessToken: auth.grant!.accessToken)
        }
        let shown = try await CLI.run(["token", "show", record.fingerprint, "--json"], in: world)
        #expect(try shown.object()["state"] as? String == "revoked")
    }

    @Test("token revoke --user revokes every token of the user and no one else's")
    func revokeByUser() async throws {
        let world = try await TestWorld.current()
        let a = try await world.register("a@example.com")
        let b = try await world.register("b@example.com")

        let result = try await CLI.run(["token", "revoke", "--user", "A@example.com", "--json"], in: world)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try result.object()["revoked"] as? Int == 2)
        await #expect(throws: CaptureError.invalidAccessToken) {
            try await world.service.entity(accessToken: a.grant!.accessToken)
        }
        _ = try await world.service.entity(accessToken: b.grant!.accessToken)
        await #expect(throws: CaptureError.self) {
            try await world.service.refresh(refreshToken: a.grant!.refreshToken, clientID: "demo-mobile-app", clientSecret: nil)
        }
    }

    @Test("token revoke needs exactly one of a reference and --user (usage error, exit 2)")
    func revokeUsage() async throws {
        let world = try await TestWorld.current()
        try await world.register("a@example.com")
        let neither = try await CLI.run(["token", "revoke"], in: world)
        #expect(neither.status == 2)
        #expect(!neither.stderr.isEmpty)
        let both = try await CLI.run(["token", "revoke", "abcdef123456", "--user", "a@example.com"], in: world)
        #expect(both.status == 2)
        let notAReference = try await CLI.run(["token", "show", "xyz"], in: world)
        #expect(notAReference.status == 2)
        #expect(notAReference.stderr.contains("fingerprint"))
        let tokens = try await world.service.listTokens(user: nil, client: nil, activeOnly: true)
        #expect(tokens.count == 2)
    }

    @Test("revoking a token that is already revoked is refused (exit 1)")
    func revokeTwice() async throws {
        let world = try await TestWorld.current()
        try await world.register("twice@example.com")
        let access = try #require(
            try await world.service.listTokens(user: "twice@example.com", client: nil, activeOnly: false).first { $0.kind == .access })
        let first = try await CLI.run(["token", "revoke", access.fingerprint], in: world)
        #expect(first.status == 0, "\(first.stderr)")
        let second = try await CLI.run(["token", "revoke", access.fingerprint], in: world)
        #expect(second.status == 1)
        #expect(second.stderr.contains("already revoked"))
    }

    @Test("token introspect: active, then {\"active\":false} and exit 1 after revocation; '-' reads stdin")
    func introspect() async throws {
        let world = try await TestWorld.current()
        let auth = try await world.register("a@example.com")
        let token = auth.grant!.accessToken

        let active = try await CLI.run(["token", "introspect", token, "--json"], in: world)
        #expect(active.status == 0, "\(active.stderr)")
        let object = try active.object()
        #expect(object["active"] as? Bool == true)
        #expect(object["username"] as? String == "a@example.com")
        #expect(object["sub"] as? String == auth.user.id)
        #expect(object["client_id"] as? String == "demo-mobile-app")
        #expect(object["token_type"] as? String == "Bearer")
        #expect(object["exp"] as? Int != nil && object["iat"] as? Int != nil)
        #expect(!active.stdout.contains(token))

        let viaStdin = try await CLI.run(["token", "introspect", "-", "--json"], in: world, stdin: token + "\n")
        #expect(viaStdin.status == 0, "\(viaStdin.stderr)")
        #expect(try viaStdin.object()["username"] as? String == "a@example.com")

        let refresh = try await CLI.run(["token", "introspect", auth.grant!.refreshToken, "--json"], in: world)
        #expect(try refresh.object()["token_type"] as? String == "refresh_token")

        let table = try await CLI.run(["token", "introspect", "-"], in: world, stdin: token)
        #expect(table.status == 0)
        #expect(table.stdout.contains("active"))
        #expect(table.stdout.contains("a@example.com"))

        _ = try await world.service.revokeTokens(ofUser: "a@example.com")
        let inactive = try await CLI.run(["token", "introspect", token, "--json"], in: world)
        #expect(inactive.status == 1)
        #expect(inactive.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == #"{"active":false}"#)
        let inactiveStdin = try await CLI.run(["token", "introspect", "-", "--json"], in: world, stdin: token)
        #expect(inactiveStdin.status == 1)
        #expect(try inactiveStdin.object()["active"] as? Bool == false)

        let unknown = try await CLI.run(["token", "introspect", "not-a-token"], in: world)
        #expect(unknown.status == 1)
        #expect(unknown.stdout.contains("active: false"))
    }

    @Test("unknown tokens are 'not found' (exit 1 with a message)")
    func unknownToken() async throws {
        let world = try await TestWorld.current()
        for arguments in [["token", "show", "abcdef0123"], ["token", "revoke", "abcdef0123"], ["token", "show", "999999"],
                          ["token", "list", "--user", "nobody@example.com"]] {
            let result = try await CLI.run(arguments, in: world)
            #expect(result.status == 1, "\(arguments)")
            #expect(result.stderr.contains("not found"), "\(arguments): \(result.stderr)")
        }
    }

    @Test("token purge-expired deletes only expired tokens")
    func purgeExpired() async throws {
        let world = try await TestWorld.current()
        try await world.register("a@example.com")
        let result = try await CLI.run(["token", "purge-expired", "--json"], in: world)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try result.object()["purged"] as? Int == 0)
        #expect(try await world.service.listTokens(user: nil, client: nil, activeOnly: false).count == 2)
    }
}
