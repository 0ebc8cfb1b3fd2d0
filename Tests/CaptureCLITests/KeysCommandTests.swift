import CaptureCore
import CaptureTestSupport
import Foundation
import Testing

/// `capturectl keys list` and `keys rotate`, on the database and with `--server`: the same rows and output, an audit
/// row per rotation, and never private material.
@Suite struct KeysCommandTests {
    static func rows(_ result: CLIResult) throws -> [[String: Any]] {
        try #require(try result.json() as? [[String: Any]], "not a list: \(result.stdout)")
    }

    @Test("keys rotate makes new signers and keys list shows the old ones retiring", arguments: CLIMode.allCases)
    func rotateAndList(mode: CLIMode) async throws {
        let world = try await TestWorld.current()
        let cli = CLISession(world, mode)
        // The service's first keys, made as its first ID token or JWKS request makes them.
        _ = try await world.service.signingKeys.document()
        let first = try await world.service.signingKeys.list()
        #expect(first.count == 2)

        let rotated = try await cli.run(["keys", "rotate", "--algorithm", "es256", "--json"])
        #expect(rotated.status == 0, "\(rotated.stderr)")
        let made = try Self.rows(rotated)
        #expect(made.count == 1 && made[0]["alg"] as? String == "ES256" && made[0]["state"] as? String == "active")
        let newKid = try #require(made[0]["kid"] as? String)

        let listed = try await cli.run(["keys", "list", "--json"])
        #expect(listed.status == 0, "\(listed.stderr)")
        let rows = try Self.rows(listed)
        #expect(Set(rows.compactMap { $0["kid"] as? String }) == Set(first.map(\.kid) + [newKid]))
        let oldES = try #require(first.first { $0.algorithm == .es256 })
        let retiring = try #require(rows.first { $0["kid"] as? String == oldES.kid })
        #expect(retiring["state"] as? String == "retiring" && retiring["retires_at"] as? String != nil)
        #expect(rows.first { $0["alg"] as? String == "RS256" }?["state"] as? String == "active")
        for row in rows { #expect(Set(row.keys) == ["kid", "alg", "state", "created_at", "retires_at"]) }
        for key in try await world.service.store.signingKeys.list() {
            #expect(!listed.stdout.contains(key.sealedKey) && !rotated.stdout.contains(key.sealedKey))
        }

        // Both algorithms by default; the table names its columns.
        let both = try await cli.run(["keys", "rotate"])
        #expect(both.status == 0, "\(both.stderr)")
        for header in ["KID", "ALG", "STATE", "CREATED", "RETIRES"] { #expect(both.stdout.contains(header)) }
        #expect(both.stdout.contains("RS256") && both.stdout.contains("ES256"))
        #expect(try await world.service.signingKeys.list().filter { $0.retireAt == nil }.count == 2)

        let audit = try await world.service.audit.auditLog(AuditFilter(action: "keys.rotate"))
        #expect(audit.map(\.target).sorted() == ["ES256", "RS256,ES256"])
        #expect(audit.allSatisfy { $0.outcome == AuditEntry.success })
        #expect(audit.contains { $0.detail == "new \(newKid)" })
    }

    @Test("keys rotate refuses an algorithm it does not sign with", arguments: CLIMode.allCases)
    func unknownAlgorithm(mode: CLIMode) async throws {
        let world = try await TestWorld.current()
        let cli = CLISession(world, mode)
        let refused = try await cli.run(["keys", "rotate", "--algorithm", "HS256"])
        #expect(refused.status == 2 && refused.stderr.contains("RS256 or ES256"), "\(refused.stderr)")
        #expect(try await world.service.store.signingKeys.list().isEmpty)
    }
}
