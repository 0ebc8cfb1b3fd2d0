import CaptureCore
import CaptureStorage
import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle
import Synchronization

/// Two instances of the service's storage on one new PostgreSQL database, each running its services (the pool and
/// the change notices' listener) as the server does, and a connection of the test's own beside them (`probe`).
public struct PostgresInstances: Sendable {
    public let location: PostgresLocation
    public let first: OpenedStorage
    public let second: OpenedStorage
    public let probe: PostgresConnection

    static let logger = Logger(label: "capture.test.postgres")

    /// `body` with two instances running; both are closed after it.
    public static func run(_ body: (PostgresInstances) async throws -> Void) async throws {
        let location = try await PostgresTestServer.shared.newSchema()
        let first = try await OpenedStorage.open(.postgres(location), service: true)
        let second = try await OpenedStorage.open(.postgres(location), service: true)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for service in first.services + second.services { group.addTask { try await service.run() } }
            defer { group.cancelAll() }
            let probe = try await PostgresTestServer.connectWhenASlotFrees(location)
            do {
                try await body(PostgresInstances(location: location, first: first, second: second, probe: probe))
            } catch {
                try? await probe.close()
                throw error
            }
            try await probe.close()
        }
        try await first.close()
        try await second.close()
    }

    /// The rows of `sql` on the probe connection.
    @discardableResult public func read(_ sql: String) async throws -> [PostgresRow] {
        try await probe.query(PostgresQuery(unsafeSQL: sql), logger: Self.logger).collect()
    }

    /// The listeners' connections, as `pg_stat_activity` shows them: `WHERE` that and `SELECT` this.
    public func listeners(_ select: String) async throws -> [PostgresRow] {
        try await read(
            """
            SELECT \(select) FROM pg_stat_activity
            WHERE application_name = 'capture-bridge changes \(location.schema!)'
            """)
    }

    /// The clients' version each instance answers while the counter cannot be read (another connection holds its
    /// table locked): nil for one that would have to read it, that is, one not listening. Which it is is seen, not
    /// timed: the answer comes, or the instance's read waits for the lock (`pg_locks`).
    public func clientsVersionsFromMemory() async throws -> [Int64?] {
        let table = "\(location.schema!).change_counters"
        var answers: [Int64?] = []
        for store in [first, second] {
            try await read("BEGIN")
            try await read("LOCK TABLE \(table) IN ACCESS EXCLUSIVE MODE")
            let clients = store.repositories.clients
            let answer = Mutex<Result<Int64, any Error>?>(nil)
            // A read waits for the lock; it is left to finish after the rollback.
            Task {
                do {
                    let version = try await clients.version()
                    answer.withLock { $0 = .success(version) }
                } catch {
                    answer.withLock { $0 = .failure(error) }
                }
            }
            var fromMemory: Int64?
            let seen = try await Self.eventually(TestTiming.patience) {
                if let outcome = answer.withLock({ $0 }) {
                    fromMemory = try outcome.get()
                    return true
                }
                let waiting = try await read(
                    "SELECT count(*) FROM pg_locks WHERE relation = '\(table)'::regclass AND NOT granted")
                return try waiting.first!.decode(Int.self) > 0
            }
            try await read("ROLLBACK")
            guard seen else { throw NeitherAnsweredNorWaiting() }
            answers.append(fromMemory)
        }
        return answers
    }

    /// An instance asked for the clients' version neither answered nor waited for the lock within `patience`.
    struct NeitherAnsweredNorWaiting: Error {}

    /// The clients' version as stored.
    public func storedClientsVersion() async throws -> Int64 {
        try await read("SELECT version FROM \(location.schema!).change_counters WHERE name = 'clients'")
            .first!.decode(Int64.self)
    }

    /// Waits until both instances listen (at most `TestTiming.patience`); false if they do not.
    public func bothListening() async throws -> Bool {
        try await Self.eventually(TestTiming.patience) {
            let versions = try await clientsVersionsFromMemory()
            return versions.count == 2 && versions.allSatisfy { $0 != nil }
        }
    }

    /// Whether `condition` holds within `limit`, asked every 2 ms.
    public static func eventually(_ limit: Duration, _ condition: () async throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(2))
        }
        return try await condition()
    }
}
