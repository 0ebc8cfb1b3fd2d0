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

    /// Migration v21: a client's pages (v19's columns) become its settings; existing clients are login clients.
    @Test func clientPagesBecomeSettingsAndClientsBecomeLoginClients() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("v19-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let queue = try DatabaseQueue(path: path)
        try Migrations.migrator.migrate(queue, upTo: "v19-client-pages")
        try await queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO clients (clientID, name, redirectURIs, allowedOrigins, responseTypes, legacyTokenURL,
                                         siteName, passwordRecoverURL, createdAt)
                    VALUES ('shop', 'Shop', '[]', '["https://shop.example"]', '["token"]', 0, 'Orchard',
                            'https://shop.example/reset', '2020-01-01 00:00:00.000'),
                           ('bare', 'Bare', '[]', '[]', '["token"]', 0, NULL, NULL, '2020-01-01 00:00:00.000')
                    """)
        }
        try queue.close()

        let pool = try CaptureDatabase.open(path: path)
        let repositories = CaptureDatabase.repositories(pool)
        #expect(try await repositories.clients.find(id: "shop")?.features == [.loginClient])
        #expect(try await repositories.clients.find(id: "bare")?.whitelist == [])
        #expect(
            try await repositories.clientSettings.values(of: .client("shop"))
                == ["site_name": "Orchard", "password_recover_url": "https://shop.example/reset"])
        #expect(try await repositories.clientSettings.values(of: .client("bare")).isEmpty)
        let columns = try await pool.read { db in try db.columns(in: "clients").map(\.name) }
        #expect(!columns.contains("siteName") && columns.contains("features"))
    }
}
