import CaptureCore
import Foundation
import GRDB
import Testing

@testable import CaptureStore

/// Migration v5 moves the profile columns of records written before the entity schema into the JSON profile.
@Suite struct SchemaMigrationTests {
    @Test func recordsFromBeforeTheSchemaKeepTheirProfileAndGetNumbersInOrder() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("v4-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let queue = try DatabaseQueue(path: path)
        try Migrations.migrator.migrate(queue, upTo: "v4-codes-outbox")
        try await queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO users (id, email, passwordHash, displayName, givenName, familyName, birthday, phone,
                                       createdAt, updatedAt)
                    VALUES ('u-1', 'old@example.com', '$2b$10$x', 'Old Timer', 'Zoë', NULL, '1970-01-01', NULL,
                            '2020-01-01 00:00:00.000', '2020-01-01 00:00:00.000'),
                           ('u-2', 'second@example.com', NULL, NULL, NULL, NULL, NULL, NULL,
                            '2021-01-01 00:00:00.000', '2021-01-01 00:00:00.000')
                    """)
        }
        try queue.close()

        let pool = try CaptureDatabase.open(path: path)
        let users = CaptureDatabase.repositories(pool).users
        let old = try #require(try await users.find(id: "u-1"))
        #expect(old.profile == ["displayName": "Old Timer", "givenName": "Zoë", "birthday": "1970-01-01"])
        #expect(old.number == 1 && old.passwordHash == "$2b$10$x")
        let second = try #require(try await users.find(id: "u-2"))
        #expect(second.profile.isEmpty && second.number == 2)
        let columns = try await pool.read { db in try db.columns(in: "users").map(\.name) }
        #expect(!columns.contains("displayName") && columns.contains("profile"))
        // New records continue the numbering.
        let new = try await users.insert(User(id: "u-3", email: "new@example.com", passwordHash: nil, createdAt: Date()))
        #expect(new.number == 3)
    }
}
