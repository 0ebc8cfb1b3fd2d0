import CaptureCore
import Testing

/// `--db` / `CAPTURE_DB` / `database`: a file, a sqlite: URL or a postgres:// URL, parsed strictly.
@Suite struct DatabaseLocationTests {
    @Test func pathsAndSQLiteURLsNameAFile() throws {
        #expect(try DatabaseLocation(".data/capture.sqlite") == .sqlite(path: ".data/capture.sqlite"))
        #expect(try DatabaseLocation("sqlite:rel/capture.sqlite") == .sqlite(path: "rel/capture.sqlite"))
        #expect(try DatabaseLocation("sqlite:///var/lib/capture.sqlite") == .sqlite(path: "/var/lib/capture.sqlite"))
        #expect(throws: DatabaseLocationError.self) { try DatabaseLocation("") }
        #expect(throws: DatabaseLocationError.self) { try DatabaseLocation("sqlite:") }
        #expect(throws: DatabaseLocationError("'mysql' databases are not supported: use a file path, sqlite: or postgres://")) {
            try DatabaseLocation("mysql://db/capture")
        }
    }

    @Test func aPostgresURLReadsLikeLibpqsAndNeverShowsItsPassword() throws {
        let location = try DatabaseLocation(
            "postgresql://capture:p%40ss%2Fword@db.internal:6432/accounts?sslmode=verify-full&pool_max=5&pool_idle_seconds=9")
        guard case .postgres(let server) = location else { Issue.record("\(location)"); return }
        #expect(server.host == "db.internal" && server.port == 6432 && server.database == "accounts")
        #expect(server.user == "capture" && server.password == "p@ss/word")
        #expect(server.tls == .verifyFull && server.maxConnections == 5 && server.idleSeconds == 9)
        #expect(location.description == "postgres://capture@db.internal:6432/accounts")

        // What the URL leaves out comes from libpq's variables; defaults otherwise.
        let fromEnvironment = try PostgresLocation(
            url: "postgres:///capture?host=/run/postgresql", environment: ["PGUSER": "svc", "PGPASSWORD": "secret"])
        #expect(fromEnvironment.user == "svc" && fromEnvironment.password == "secret")
        #expect(fromEnvironment.socketDirectory == "/run/postgresql" && fromEnvironment.port == 5432)
        #expect(fromEnvironment.tls == .prefer && fromEnvironment.maxConnections == 20 && fromEnvironment.idleSeconds == 10)
        #expect(!fromEnvironment.description.contains("secret"))
    }

    @Test func aPostgresURLWithSomethingWrongIsRefusedNamingIt() {
        let cases: [(String, String)] = [
            ("postgres://db/capture", "needs a user"),
            ("postgres://u@db/", "needs a database name"),
            ("postgres://u@db/capture?sslmode=verify-ca", "sslmode must be one of disable, prefer, require, verify-full"),
            ("postgres://u@db/capture?pool_max=0", "pool_max must be between 1 and 1000"),
            ("postgres://u@db/capture?connect_timeout=0", "connect_timeout must be between 1 and 600 seconds"),
            ("postgres://u@db/capture?application_name=x", "unknown parameter 'application_name'"),
            ("postgres://u@db:99999/capture", "port '99999' is not between 1 and 65535"),
            ("postgres://u@db:x/capture", "is not a URL"),
        ]
        for (text, says) in cases {
            do {
                _ = try DatabaseLocation(text)
                Issue.record("\(text) was accepted")
            } catch let error as DatabaseLocationError {
                #expect(error.problem.contains(says), "\(text): \(error.problem)")
            } catch {
                Issue.record("\(text): \(error)")
            }
        }
    }
}
