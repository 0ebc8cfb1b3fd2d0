import CaptureCore
import CaptureStorage
import Foundation
import Logging
import PostgresNIO

/// The storage backends a test can run on.
public enum TestBackend: String, Sendable, CaseIterable, CustomStringConvertible {
    case sqlite, postgres

    public var description: String { rawValue }

    /// The backend `TestWorld.make()` uses: `CAPTURE_TEST_BACKEND` (`sqlite`, the default, or `postgres`).
    public static var selected: TestBackend {
        TestBackend(rawValue: ProcessInfo.processInfo.environment["CAPTURE_TEST_BACKEND"] ?? "") ?? .sqlite
    }
}

/// A new, empty, migrated store of one backend: a temporary SQLite file, or a new schema on the PostgreSQL server
/// `scripts/with-postgres.sh` started (`CAPTURE_TEST_POSTGRES`, a superuser URL).
public enum TestStorage {
    /// Where a new store of `backend` is; each call names a new, empty one.
    public static func newLocation(_ backend: TestBackend) async throws -> DatabaseLocation {
        switch backend {
        case .sqlite:
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("capture-test-\(UUID().uuidString)")
            return .sqlite(path: directory.appendingPathComponent("capture.sqlite").path)
        case .postgres:
            return .postgres(try await PostgresTestServer.shared.newSchema())
        }
    }

    /// `location` as `--db` takes it: the path, or the URL with user and password (`--db` of a test's capturectl).
    public static func connectionString(_ location: DatabaseLocation) -> String {
        switch location {
        case .sqlite(let path): return path
        case .postgres(let server):
            var components = URLComponents()
            components.scheme = "postgres"
            components.user = server.user
            components.password = server.password
            components.host = server.host
            components.port = server.port
            components.path = "/" + server.database
            components.queryItems =
                (server.schema.map { [URLQueryItem(name: "schema", value: $0)] } ?? []) + [
                    URLQueryItem(name: "sslmode", value: server.tls.rawValue),
                    URLQueryItem(name: "pool_max", value: "\(server.maxConnections)"),
                    URLQueryItem(name: "pool_idle_seconds", value: "\(server.idleSeconds)"),
                    URLQueryItem(name: "connect_timeout", value: "\(server.connectTimeoutSeconds)"),
                ]
            return components.string!
        }
    }

    public static func open(_ backend: TestBackend, metrics: CaptureMetrics = .facade) async throws -> OpenedStorage {
        try await OpenedStorage.open(try await newLocation(backend), metrics: metrics)
    }
}

/// The test PostgreSQL server: a schema per store in one database of the test process (a new database costs about
/// 0.3 s of the server's time, a schema a few milliseconds), through one superuser connection pool.
public actor PostgresTestServer {
    public static let shared = PostgresTestServer()

    public struct NotConfigured: Error, CustomStringConvertible {
        public var description: String {
            "CAPTURE_TEST_POSTGRES is not set: run the tests through scripts/with-postgres.sh (make test does), which "
                + "starts a PostgreSQL server on loopback for them"
        }
    }

    private var admin: (PostgresClient, PostgresLocation)?
    private var shared: Task<PostgresLocation, any Error>?

    /// A new schema, not created yet (the store creates it and its tables when it opens), in the database the test
    /// process's stores share.
    public func newSchema() async throws -> PostgresLocation {
        if shared == nil { shared = Task { try await newDatabase() } }
        var location = try await shared!.value
        location.schema = "store_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        return location
    }

    /// A new, empty database (its tables are created when a store opens it), for a test that changes the database
    /// itself (its owner, say).
    public func newDatabase() async throws -> PostgresLocation {
        let (client, server) = try adminClient()
        let name = "capture_test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        _ = try await client.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)")).collect()
        var location = server
        location.database = name
        location.maxConnections = 4
        // Worlds are never closed: idle connections go soon, so a suite of hundreds stays under the server's limit.
        location.idleSeconds = 1
        // When it is reached for a moment (a loaded machine runs the idle timers late), a world's opening waits for a
        // slot (SQLSTATE 53300) for up to this long rather than the default 10 s.
        location.connectTimeoutSeconds = 120
        return location
    }

    /// Runs `sql` on the database (and in the schema) of `location` through a connection of its own.
    public func execute(_ sql: String, on location: PostgresLocation) async throws {
        _ = try await rows(sql, on: location)
    }

    /// The rows `sql` answers on the database (and in the schema) of `location`, each column as text.
    public func rows(_ sql: String, on location: PostgresLocation) async throws -> [[String]] {
        var configuration = PostgresClient.Configuration(
            host: location.host, port: location.port, username: location.user, password: location.password,
            database: location.database, tls: .disable)
        configuration.options.additionalStartupParameters = location.schema.map { [("search_path", $0)] } ?? []
        let client = PostgresClient(configuration: configuration)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            return try await client.query(PostgresQuery(unsafeSQL: sql)).collect().map { row in
                try row.map { cell in try cell.decode(String.self) }
            }
        }
    }

    /// `body`'s result while one connection as `location`'s user is held open for `duration` (a role's only slot,
    /// say), then closed.
    public nonisolated func holding<T: Sendable>(
        _ location: PostgresLocation, for duration: Duration, _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let connection = try await Self.connectWhenASlotFrees(location)
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                try? await Task.sleep(for: duration)
                try? await connection.close()
                return nil
            }
            group.addTask { try await body() }
            var result: T?
            for try await value in group where value != nil { result = value }
            return result!
        }
    }

    /// One connection as `location`'s user. The suite's other worlds can fill the server's slots for a moment
    /// (SQLSTATE 53300): the attempt waits for one, as the store's own opening does.
    public nonisolated static func connectWhenASlotFrees(_ location: PostgresLocation) async throws -> PostgresConnection {
        while true {
            do {
                return try await PostgresConnection.connect(
                    configuration: .init(
                        host: location.host, port: location.port, username: location.user, password: location.password,
                        database: location.database, tls: .disable),
                    id: 1, logger: Logger(label: "capture.test.postgres"))
            } catch let error as PSQLError where error.serverInfo?[.sqlState] == "53300" {
                try await Task.sleep(for: .milliseconds(100))
            }
        }
    }

    private func adminClient() throws -> (PostgresClient, PostgresLocation) {
        if let admin { return admin }
        guard let url = ProcessInfo.processInfo.environment["CAPTURE_TEST_POSTGRES"], !url.isEmpty else {
            throw NotConfigured()
        }
        var server = try PostgresLocation(url: url)
        server.tls = .disable
        let client = PostgresClient(
            configuration: .init(
                host: server.host, port: server.port, username: server.user, password: server.password,
                database: server.database, tls: .disable))
        // Runs for the rest of the test process.
        Task.detached { await client.run() }
        admin = (client, server)
        return (client, server)
    }
}
