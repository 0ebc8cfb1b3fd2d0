import CaptureCore
import CapturePostgres
import CaptureStorage
import CaptureTestSupport
import Foundation
import Testing

/// `?schema=`: deployments sharing one PostgreSQL database each keep their tables in a schema of their own.
@Suite struct PostgresSchemaTests {
    @Test func twoSchemasOfOneDatabaseAreTwoStoresAndPublicStaysEmpty() async throws {
        let database = try await PostgresTestServer.shared.newDatabase()
        var first = database
        first.schema = "tenant_one"
        var second = database
        second.schema = "tenant_two"
        let one = try await OpenedStorage.open(.postgres(first))
        let two = try await OpenedStorage.open(.postgres(second))
        // The same address, and both are number 1: neither store sees the other's row or unique index.
        let a = try await one.repositories.users.insert(RepositoryConformanceTests.user("same@example.com"))
        let b = try await two.repositories.users.insert(RepositoryConformanceTests.user("same@example.com"))
        #expect(a.number == 1 && b.number == 1)
        #expect(try await two.repositories.users.find(id: a.id) == nil)
        #expect(try await one.repositories.users.find(email: "same@example.com")?.id == a.id)

        // Every table is in the two schemas, none in public; a second opening of a schema migrates nothing new.
        let again = try await OpenedStorage.open(.postgres(first))
        #expect(try await again.repositories.users.find(id: a.id)?.email == "same@example.com")
        let rows = try await PostgresTestServer.shared.rows(
            """
            SELECT table_schema::text, count(*)::text FROM information_schema.tables
            WHERE table_name IN ('users', 'tokens', 'capture_migrations') GROUP BY table_schema ORDER BY 1
            """, on: database)
        #expect(rows == [["tenant_one", "3"], ["tenant_two", "3"]])
        for store in [one, two, again] { try await store.close() }
    }

    /// A schema a newer build migrated is refused with `DatabaseTooNew` (exit code 3), as a SQLite file is.
    @Test func aSchemaFromANewerBuildIsRefused() async throws {
        let location = try await PostgresTestServer.shared.newSchema()
        try await OpenedStorage.open(.postgres(location)).close()
        try await PostgresTestServer.shared.execute(
            "INSERT INTO capture_migrations (id) VALUES ('p99-from-a-newer-build')", on: location)
        let error = await #expect(throws: DatabaseTooNew.self) { try await OpenedStorage.open(.postgres(location)) }
        #expect(error?.unknownMigrations == ["p99-from-a-newer-build"])
    }

    @Test func aSchemaNameIsPlainOrRefused() throws {
        let location = try PostgresLocation(url: "postgres://u@db/capture?schema=capture_eu")
        #expect(location.schema == "capture_eu")
        #expect(location.description == "postgres://u@db:5432/capture?schema=capture_eu")
        for name in ["Capture", "1st", "pg_capture", "a-b", "a;drop table users", String(repeating: "a", count: 64)] {
            let encoded = name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? name
            #expect(throws: DatabaseLocationError.self, "\(name)") {
                try PostgresLocation(url: "postgres://u@db/capture?schema=\(encoded)")
            }
        }
    }
}
