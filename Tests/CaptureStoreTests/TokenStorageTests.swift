import CaptureCore
import CaptureTestSupport
import Foundation
import GRDB
import Testing

@testable import CaptureStore

@Suite struct TokenStorageTests {
    @Test func theDatabaseHoldsHashesNeverTokens() async throws {
        let world = try await TestWorld.make(backend: .sqlite)
        let result = try await world.register("hash@example.com", password: "a long password")
        // Everything SQLite has written: the main file and the write-ahead log.
        let bytes = [world.database, world.database + "-wal"].reduce(Data()) { data, path in
            data + ((try? Data(contentsOf: URL(fileURLWithPath: path))) ?? Data())
        }
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(!text.contains(result.grant!.accessToken))
        #expect(!text.contains(result.grant!.refreshToken))
        #expect(!text.contains("a long password"))
        let hashes = try await world.pool.read { db in try String.fetchAll(db, sql: "SELECT hash FROM tokens") }
        #expect(Set(hashes) == [TokenMinter.key(result.grant!.accessToken), TokenMinter.key(result.grant!.refreshToken)])
        let passwordHash = try await world.pool.read { db in try String.fetchOne(db, sql: "SELECT passwordHash FROM users") }
        #expect(passwordHash?.hasPrefix("$2") == true)
    }

    /// A rotation writes a user's index entry and a chain's through one index (`v9`); the lookups that used the two
    /// single-column indexes still go through an index, none scans the table.
    @Test func tokensOfAUserAndOfAChainShareOneIndex() async throws {
        let world = try await TestWorld.make(backend: .sqlite)
        let indexes = try await world.pool.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'tokens'")
        }
        #expect(indexes.contains("tokens_by_user_chain"))
        #expect(!indexes.contains("tokens_on_userID") && !indexes.contains("tokens_on_chainID"))
        for sql in [
            "UPDATE tokens SET revokedAt = 1 WHERE revokedAt IS NULL AND userID = 'u' AND chainID = 'c'",
            "UPDATE tokens SET revokedAt = 1 WHERE userID = 'u' AND chainID != 'c' AND kind != 'device'",
            // The user's tokens, as a listing and as deleting a user (its foreign key) look them up.
            "SELECT * FROM tokens WHERE userID = 'u'",
        ] {
            let plan = try await world.pool.read { db in
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN \(sql)").map { $0["detail"] as String }.joined(separator: "; ")
            }
            #expect(!plan.contains("SCAN tokens"), "\(sql): \(plan)")
        }
    }

    /// A redemption's and introspection's reads of the account take what they need from `users_standing`,
    /// never a page of the users table (whose rows hold the stored profiles).
    @Test func accountStandingIsReadFromItsIndexAlone() async throws {
        let world = try await TestWorld.make(backend: .sqlite)
        for sql in [SQLiteTokenRepository.redemptionSQL, TokenCheckSQL.account] {
            let plan = try await world.pool.read { db in
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN \(sql)", arguments: ["k"])
                    .map { $0["detail"] as String }.joined(separator: "; ")
            }
            #expect(plan.contains("USING COVERING INDEX users_standing"), "\(sql): \(plan)")
        }
    }

    @Test func refreshRotatesAndReuseRevokesTheChain() async throws {
        let world = try await TestWorld.make()
        let first = try await world.register("rotate@example.com").grant!
        let second = try await world.service.tokens.refresh(
            refreshToken: first.refreshToken, clientID: "demo-mobile-app", clientSecret: nil)
        #expect(second.refreshToken != first.refreshToken)
        _ = try await world.service.profile.entity(accessToken: second.accessToken)

        // A stolen, already-rotated refresh token is replayed: the whole chain dies.
        await #expect(throws: CaptureError.invalidGrant("refresh token was already used; its session has been revoked")) {
            try await world.service.tokens.refresh(
                refreshToken: first.refreshToken, clientID: "demo-mobile-app", clientSecret: nil)
        }
        for token in [first.accessToken, second.accessToken] {
            await #expect(throws: CaptureError.invalidAccessToken) { try await world.service.profile.entity(accessToken: token) }
        }
        await #expect(throws: CaptureError.self) {
            try await world.service.tokens.refresh(
                refreshToken: second.refreshToken, clientID: "demo-mobile-app", clientSecret: nil)
        }
    }

    @Test func refreshIsBoundToItsClient() async throws {
        let world = try await TestWorld.make()
        _ = try await world.service.clientAdmin.addClient(
            id: "other-app", name: nil, confidential: false, redirectURIs: [], allowedOrigins: [], responseTypes: ["token"],
            legacyTokenURL: false)
        let grant = try await world.register("bound@example.com").grant!
        await #expect(throws: CaptureError.self) {
            try await world.service.tokens.refresh(refreshToken: grant.refreshToken, clientID: "other-app", clientSecret: nil)
        }
        // The failed attempt did not consume the token.
        _ = try await world.service.tokens.refresh(
            refreshToken: grant.refreshToken, clientID: "demo-mobile-app", clientSecret: nil)
    }

    @Test func accessTokensExpireAfterTheirLifetime() async throws {
        let world = try await TestWorld.make()
        let grant = try await world.register("expire@example.com").grant!
        #expect(grant.expiresIn == 3600)
        world.time.advance(by: 3599)
        _ = try await world.service.profile.entity(accessToken: grant.accessToken)
        world.time.advance(by: 2)
        await #expect(throws: CaptureError.accessTokenExpired) {
            try await world.service.profile.entity(accessToken: grant.accessToken)
        }
        // Janrain's signed refresh still takes an expired access token, so the purge keeps it for the refresh
        // token's lifetime after its issue; then both go.
        #expect(try await world.service.housekeeping.purgeExpiredTokens() == 0)
        world.time.advance(by: world.service.settings.refreshTokenLifetime)
        #expect(try await world.service.housekeeping.purgeExpiredTokens() == 2)
    }

    @Test func revocationIsImmediateAndFindsByFingerprint() async throws {
        let world = try await TestWorld.make()
        let grant = try await world.register("revoke@example.com").grant!
        // The SHA-256 of the token, as an operator sees it.
        let fingerprint = String(TokenMinter.hash(grant.accessToken).prefix(12))
        let record = try await world.service.admin.findToken(fingerprint)
        #expect(record.kind == .access)
        #expect(try await world.service.admin.revokeToken(fingerprint) == 1)
        await #expect(throws: CaptureError.invalidAccessToken) {
            try await world.service.profile.entity(accessToken: grant.accessToken)
        }
    }

    @Test func addressesAreUniqueRegardlessOfCase() async throws {
        let world = try await TestWorld.make(backend: .sqlite)
        try await world.register("Case@Example.com")
        await #expect(throws: CaptureError.emailAddressInUse(field: "emailAddress")) {
            try await world.register("case@example.COM")
        }
        let count = try await world.pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM users") }
        #expect(count == 1)
    }

    @Test func theDatabaseReopensWithMigrationsApplied() async throws {
        let world = try await TestWorld.make(backend: .sqlite)
        try await world.register("reopen@example.com")
        try world.pool.close()
        let again = try CaptureDatabase.open(path: world.database)
        let users = try await again.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM users") }
        #expect(users == 1)
        let mode = try await again.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
        #expect(mode == "wal")
    }
}
