import CaptureCore
import CapturePostgres
import CaptureStorage
import CaptureTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A PostgreSQL database that cannot be opened stops start-up at once, with the server's reason and no password.
@Suite struct PostgresOpeningTests {
    @Test func aRefusedPasswordAMissingDatabaseAndNoServerAreNamedAtOnce() async throws {
        let server = try await PostgresTestServer.shared.newSchema()
        var wrongPassword = server
        wrongPassword.password = "not the password"
        var missing = server
        missing.database = "no_such_database"
        var closed = server
        closed.port = 1
        let clock = ContinuousClock()
        for (location, says) in [
            (wrongPassword, "password authentication failed"), (missing, "does not exist"), (closed, "refused"),
        ] {
            let started = clock.now
            do {
                _ = try await OpenedStorage.open(.postgres(location))
                Issue.record("\(location) opened")
            } catch let error as PostgresUnavailable {
                #expect(error.description.contains(says), "\(error)")
                #expect(!error.description.contains("not the password") && !error.description.contains(server.password ?? "-"))
            }
            // Nothing waited for the 10 s connect_timeout these locations have: the reason checked above names what
            // ended the attempt. The wall clock only says "not for ever" (TestTiming.notForever).
            #expect(clock.now - started < TestTiming.notForever)
        }
    }

    /// A listener that takes the connection and never answers (a hung server, a wrong port behind a firewall that
    /// accepts) is given `connect_timeout` seconds, not for ever.
    @Test func aServerThatNeverAnswersIsGivenConnectTimeoutSeconds() async throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        try withUnsafeMutablePointer(to: &address) { pointer in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                guard bind(listener, raw, length) == 0, listen(listener, 8) == 0,
                    getsockname(listener, raw, &length) == 0
                else { throw POSIXError(.EADDRINUSE) }
            }
        }
        let port = Int(UInt16(bigEndian: address.sin_port))
        let clock = ContinuousClock()
        let started = clock.now
        let error = await #expect(throws: PostgresUnavailable.self) {
            _ = try await OpenedStorage.open(
                try DatabaseLocation("postgres://u:p@127.0.0.1:\(port)/db?sslmode=disable&connect_timeout=1"))
        }
        // The reason names the limit that ended the wait, connect_timeout=1 and not the default 10 s: postgres-nio's
        // "Connect timeout (1 s)" or, once connected, ours ("no answer within 1 s (connect_timeout)").
        #expect(error?.reason.contains("1 s") == true, "\(error?.reason ?? "")")
        // And it ended: the wall clock only says "not for ever" (TestTiming.notForever).
        #expect(clock.now - started < TestTiming.notForever)
    }

    /// A server at its connection limit (here a role's `CONNECTION LIMIT 1`, SQLSTATE 53300 as for
    /// `max_connections`) is waited for within `connect_timeout`: the store opens once a slot frees, and a slot that
    /// never frees ends the wait with the server's reason.
    @Test func aServerAtItsConnectionLimitIsWaitedForWithinConnectTimeout() async throws {
        let server = try await PostgresTestServer.shared.newDatabase()
        let role = "capture_limited_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12).lowercased()
        try await PostgresTestServer.shared.execute("CREATE ROLE \(role) LOGIN PASSWORD 'limited' CONNECTION LIMIT 1", on: server)
        try await PostgresTestServer.shared.execute("ALTER DATABASE \(server.database) OWNER TO \(role)", on: server)
        func limited(connectTimeout seconds: Int) -> PostgresLocation {
            var location = server
            location.user = role
            location.password = "limited"
            location.connectTimeoutSeconds = seconds
            return location
        }
        // The one slot is held, then freed after a moment: the opening waits for it (a generous connect_timeout, as
        // the suite's other tests keep the two cores busy).
        let patient = limited(connectTimeout: 60)
        let freed = try await PostgresTestServer.shared.holding(patient, for: .milliseconds(500)) {
            try await OpenedStorage.open(.postgres(patient))
        }
        try await freed.close()
        // Held for longer than connect_timeout: refused, with the server's reason.
        let hurried = limited(connectTimeout: 2)
        let error = await #expect(throws: PostgresUnavailable.self) {
            try await PostgresTestServer.shared.holding(hurried, for: .seconds(60)) {
                try await OpenedStorage.open(.postgres(hurried))
            }
        }
        #expect(
            error?.reason.contains("connect_timeout") == true || error?.reason.contains("too many") == true,
            "\(error?.reason ?? "")")
    }
}
