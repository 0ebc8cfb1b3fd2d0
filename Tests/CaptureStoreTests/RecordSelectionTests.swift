import CaptureCore
import Foundation
import GRDB
import GRDBSQLite
import Testing

@testable import CaptureStore

/// The hot paths decode tokens and users by position from `TokenRow.selection` and `UserRow.selection`: the result
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
            let byName = try #require(try TokenRow.fetchOne(db, sql: "SELECT * FROM tokens")?.value)
            #expect(byName.usedAt != nil && byName.redirectURI != nil && byName.refreshSecret != nil)
            #expect(try SQLiteTokenRepository.token(hash: "key", in: db) == byName)
            let userByName = try #require(try UserRow.fetchOne(db, sql: "SELECT * FROM users")?.value)
            #expect(userByName.disabledAt != nil && userByName.number != nil && !userByName.profile.isEmpty)
            #expect(try SQLiteUserRepository.user(id: "u-1", in: db) == userByName)
        }
        let lookup = try #require(try await CaptureDatabase.repositories(pool).checks.check("key", .user))
        let stored = try await pool.read { db in try UserRow.fetchOne(db, sql: "SELECT * FROM users")?.value }
        #expect(lookup.user == stored && lookup.record.hash == "key")
    }

    /// `Statement.first` reads the first row where SQLite holds it, NULL as nil, and resets the statement before it
    /// returns, failing or not: a statement left stepped would keep its read transaction, and the WAL behind it, open.
    @Test func firstReadsOneRowAndLeavesNoStatementStepped() throws {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, at TEXT)")
            try db.execute(sql: "INSERT INTO t VALUES (1, 'one', NULL), (2, 'two', '2026-11-25 10:00:00.000')")
            let statement = try db.cachedStatement(sql: "SELECT id, name, at FROM t WHERE id >= ? ORDER BY id")
            let first = try statement.first(arguments: [1]) { row in
                (row[0] as Int64, row[1] as String, (row[2] as StoredInstant?)?.date)
            }
            #expect(first?.0 == 1 && first?.1 == "one" && first?.2 == nil)
            #expect(sqlite3_stmt_busy(statement.sqliteStatement) == 0)
            let second = try statement.first(arguments: [2]) { row in (row[1] as String, (row[2] as StoredInstant?)?.date) }
            #expect(second?.0 == "two" && second?.1 == Date.fromDatabaseValue("2026-11-25 10:00:00.000".databaseValue))
            #expect(try statement.first(arguments: [3]) { row in row[0] as Int64 } == nil)
            #expect(sqlite3_stmt_busy(statement.sqliteStatement) == 0)
            #expect(throws: DatabaseError.self) { try statement.first(arguments: [1, 2]) { row in row[0] as Int64 } }
            // An error SQLite raises while stepping (not while binding) is GRDB's DatabaseError too.
            let failing = try db.makeStatement(sql: "SELECT abs(?)")
            let error = #expect(throws: DatabaseError.self) {
                try failing.first(arguments: [Int64.min]) { row in row[0] as Int64 }
            }
            #expect(error?.resultCode == .SQLITE_ERROR && error?.message?.contains("integer overflow") == true)
            #expect(sqlite3_stmt_busy(failing.sqliteStatement) == 0)
        }
    }
}
