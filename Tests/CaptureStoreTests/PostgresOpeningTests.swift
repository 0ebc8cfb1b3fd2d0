import CaptureCore
import CapturePostgres
import CaptureStorage
import CaptureTestSupport
import Foundation
import Testing

/// A PostgreSQL database that cannot be opened stops start-up at once, with the server's reason and no password.
@Suite struct PostgresOpeningTests {
    @Test func aRefusedPasswordAMissingDatabaseAndNoServerAreNamedAtOnce() async throws {
        guard case .postgres(let server) = try await TestStorage.newLocation(.postgres) else { return }
        var wrongPassword = server
        wrongPassword.password = "not the password"
        var missing = server
        missing.database = "no_such_database"
        var closed = server
        closed.port = 1
        let clock = ContinuousClock()
        for (location, says) in [(wrongPassword, "password authentication failed"), (missing, "does not exist"), (closed, "refused")] {
            let started = clock.now
            do {
                _ = try await OpenedStorage.open(.postgres(location))
                Issue.record("\(location) opened")
            } catch let error as PostgresUnavailable {
                #expect(error.description.contains(says), "\(error)")
                #expect(!error.description.contains("not the password") && !error.description.contains(server.password ?? "-"))
            }
            #expect(clock.now - started < .seconds(5))
        }
    }
}
