import CaptureCore
import Foundation
import GRDB
import Testing

@testable import CaptureStore

/// The hot paths decode tokens and users by position from `TokenRecord.selection` and `User.selection`: the result
/// must be what the records' decoding by column name gives, every column set.
@Suite struct RecordSelectionTests {
    @Test func positionalDecodingReadsEveryColumnAsDecodingByName() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("selection-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let pool = try CaptureDatabase.open(path: path)
        let at = Date(timeIntervalSince1970: 1_795_000_000.25)
        var user = User(id: "u-1", email: "selection@example.com", passwordHash: "$2b$10$x", createdAt: at)
        user.profile = ["displayName": "Selected", "addresses": .array([.object(["id": 1, "city": "Oslo"])])]
        user.lastElementID = 1
        (user.emailVerifiedAt, user.updatedAt, user.lastLoginAt, user.disabledAt) = (at + 1, at + 2, at + 3, at + 4)
        user = try await CaptureDatabase.repositories(pool).users.insert(user)
        var token = TokenRecord(
            kind: .code, hash: "key", userID: user.id, clientID: "app", chainID: "chain", scope: "openid",
            authProvider: "oidc", issuedAt: at, expiresAt: at + 60, refreshSecret: "secret")
        (token.usedAt, token.revokedAt, token.redirectURI, token.codeChallenge) = (at + 5, at + 6, "https://a.example/cb", "S256")
        try await CaptureDatabase.repositories(pool).tokens.insert([token])

        try await pool.read { db in
            let byName = try #require(try TokenRecord.fetchOne(db, sql: "SELECT * FROM tokens"))
            #expect(byName.usedAt != nil && byName.redirectURI != nil && byName.refreshSecret != nil)
            #expect(try SQLiteTokenRepository.token(hash: "key", in: db) == byName)
            let userByName = try #require(try User.fetchOne(db, sql: "SELECT * FROM users"))
            #expect(userByName.disabledAt != nil && userByName.number != nil && !userByName.profile.isEmpty)
            #expect(try SQLiteUserRepository.user(id: "u-1", in: db) == userByName)
        }
        let lookup = try #require(try await CaptureDatabase.repositories(pool).tokens.findWithUser(hash: "key", forEntity: false))
        let stored = try await pool.read { db in try User.fetchOne(db, sql: "SELECT * FROM users") }
        #expect(lookup.user == stored && lookup.record.hash == "key")
    }
}
