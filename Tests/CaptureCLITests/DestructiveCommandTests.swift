import CaptureCore
import CaptureStore
import CaptureTestSupport
import Foundation
import GRDB
import Testing

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
            try await world.service.profile.entity(accessToken: auth.grant!.accessToken)
        }
        #expect(try await world.service.store.tokens.list(TokenFilter()).isEmpty)
        let again = try await cli.run(["user", "delete", "gone@example.com"])
        #expect(again.status == 1)
    }

    @Test("user deactivate deletes on the owner's behalf; reactivate takes it back", arguments: CLIMode.allCases)
    func deactivateAndReactivate(mode: CLIMode) async throws {
        let world = try await TestWorld.current()
        let cli = CLISession(world, mode)
        let auth = try await world.register("asked@example.com")
        let deactivated = try await cli.run(["user", "deactivate", "asked@example.com", "--json"])
        #expect(deactivated.status == 0, "\(deactivated.stderr)")
        #expect(try deactivated.object()["state"] as? String == "deleted")
        #expect(try deactivated.object()["delete_requested_at"] as? String != nil)
        await #expect(throws: CaptureError.invalidAccessToken) {
            try await world.service.profile.entity(accessToken: auth.grant!.accessToken)
        }
        let reactivated = try await cli.run(["user", "reactivate", "asked@example.com", "--json"])
        #expect(reactivated.status == 0, "\(reactivated.stderr)")
        #expect(try reactivated.object()["state"] as? String == "active")
        let user = try await world.service.admin.findUser("asked@example.com")
        #expect(!user.isDisabled && user.deleteRequestedAt == nil)
        let actions = try await world.service.audit.auditLog(AuditFilter(target: "asked@example.com")).map(\.action)
        #expect(actions == ["user.reactivate", "user.deactivate"])
    }

    @Test("client remove revokes the client's tokens; Settings clients are refused", arguments: CLIMode.allCases)
    func removeClient(mode: CLIMode) async throws {
        let world = try await TestWorld.current()
        let cli = CLISession(world, mode)
        let added = try await cli.run(["client", "add", "short-lived", "--redirect-uri", "/flows/webViewSignIn"])
        #expect(added.status == 0, "\(added.stderr)")
        var fields = TestWorld.registration(email: "client@example.com")
        fields["client_id"] = "short-lived"
        let auth = try await world.service.signIn.register(FlowRequest(parameters: fields))

        let removed = try await cli.run(["client", "remove", "short-lived", "--json"])
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(try removed.object()["revoked"] as? Int == 2)
        await #expect(throws: CaptureError.invalidAccessToken) {
            try await world.service.profile.entity(accessToken: auth.grant!.accessToken)
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
        _ = try await world.service.clients.authenticateClient(id: "rotating", secret: newSecret)
        await #expect(throws: CaptureError.invalidClient) {
            try await world.service.clients.authenticateClient(id: "rotating", secret: oldSecret)
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
            try await world.service.profile.entity(accessToken: a.grant!.accessToken)
        }
        #expect(try await world.service.admin.listTokens(state: .active).count == 2)
        #expect(try await cli.run(["user", "sign-out", "nobody@example.com"]).status == 1)

        let byClient = try await cli.run(["token", "revoke", "--client", "demo-mobile-app", "--json"])
        #expect(try byClient.object()["revoked"] as? Int == 2)
        #expect(try await world.service.admin.listTokens(state: .active).isEmpty)
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
        #expect(try await world.service.clientAdmin.findClient("changing").legacyTokenURL)
        let pinned = try await cli.run(["client", "update", "demo-mobile-app", "--name", "x"])
        #expect(pinned.status == 1 && pinned.stderr.contains("settings"))
        let nothing = try await cli.run(["client", "update", "changing"])
        #expect(nothing.status == 2, "\(nothing.stderr)")
        let badOrigin = try await cli.run(["client", "update", "changing", "--origin", "not an origin"])
        #expect(badOrigin.status == 2)
        #expect(try await cli.run(["client", "update", "nobody-here", "--name", "x"]).status == 1)
    }
}
