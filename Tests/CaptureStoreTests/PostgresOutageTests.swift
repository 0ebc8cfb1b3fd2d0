import CaptureCore
import CaptureStorage
import CaptureTestSupport
import Foundation
import Testing

/// The database going away under a request (an administrator ending its connection, a restart's fast shutdown):
/// the store reports `storageUnavailable` (503 with `Retry-After` at every edge), never the driver's error (a 500),
/// and the next statement finds a new connection.
@Suite struct PostgresOutageTests {
    @Test func aConnectionTheServerEndsMidStatementIsUnavailableAndTheNextStatementWorks() async throws {
        let location = try await PostgresTestServer.shared.newSchema()
        let opened = try await OpenedStorage.open(.postgres(location))
        let users = opened.repositories.users
        #expect(try await users.find(email: "first@example.com") == nil)

        let outcome = try await PostgresTestServer.shared.endingTheStatementOn("users", of: location) {
            try await users.find(email: "waiting@example.com")
        }
        #expect(throws: CaptureError.storageUnavailable) { try outcome.get() }

        #expect(try await users.find(email: "after@example.com") == nil)
        try await opened.close()
    }
}
