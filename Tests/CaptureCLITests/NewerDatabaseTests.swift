import CaptureCore
import CaptureTestSupport
import Foundation
import GRDB
import Testing

/// A database a newer build migrated is refused with exit code 3, before anything reads or writes it.
@Suite struct NewerDatabaseTests {
    @Test func capturectlRefusesADatabaseWithAnUnknownMigration() async throws {
        let world = try await TestWorld.current(backend: .sqlite)
        try await world.register("kept@example.com")
        try await world.pool.write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99-from-a-newer-build')")
        }
        for arguments in [["token", "list"], ["user", "list", "--json"], ["token", "purge-expired"]] {
            let result = try await CLI.run(arguments, in: world)
            #expect(result.status == 3, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("newer version"), "\(result.stderr)")
            #expect(result.stderr.contains("v99-from-a-newer-build"), "\(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
        // Nothing was purged or changed: the user and their tokens are all still there.
        #expect(try await world.service.admin.listTokens().count == 2)
    }
}

/// `capturectl purge-expired`: one pass of the server's purge.
@Suite struct PurgeCommandTests {
    @Test func itReportsEachItemAndKeepsLiveRows() async throws {
        let world = try await TestWorld.current()
        try await world.register("live@example.com")
        let result = try await CLI.run(["purge-expired", "--json"], in: world)
        #expect(result.status == 0, "\(result.stderr)")
        let items = try #require(try result.json() as? [[String: Any]])
        #expect(
            items.compactMap { $0["what"] as? String } == [
                "tokens", "codes", "social_logins", "throttle", "ceremonies", "oidc_grants", "mail_bodies", "audit_log",
                "accounts_erased",
                "provider_tokens_revoked",
            ])
        #expect(items.allSatisfy { $0["purged"] as? Int == 0 })
        #expect(try await world.service.admin.listTokens().count == 2)
        let table = try await CLI.run(["purge-expired"], in: world)
        #expect(table.stdout.hasPrefix("WHAT"), "\(table.stdout)")
    }
}
