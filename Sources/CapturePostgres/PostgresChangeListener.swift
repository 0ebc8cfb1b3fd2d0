import CaptureCore
import Logging
import PostgresNIO
import ServiceLifecycle
import Synchronization

/// What other connections, processes and instances change, as PostgreSQL tells it: the triggers of the writing
/// transaction send a notice on `capture_changes` (`"<schema> clients <version>"`), delivered at its commit, which
/// this service hears on a connection of its own. It keeps the clients' version, so that a request needs no round
/// trip to learn it. Until the connection listens (at start, after it dropped, while the server restarts) the
/// version is unknown and callers read it from the database; once back, it reads the version afresh before it
/// answers again. Another instance's change is seen here once its notice arrives (milliseconds on a healthy server).
final class PostgresChangeListener: Service, Sendable {
    static let channel = "capture_changes"
    /// How its connection names itself in `pg_stat_activity` (with the schema, when the location names one).
    static let applicationName = "capture-bridge changes"

    private let location: PostgresLocation
    /// The clients' version; -1 while not listening.
    private let known = Atomic<Int64>(-1)

    init(location: PostgresLocation) {
        self.location = location
    }

    /// The clients' version as the last notice (or the read after listening began) gave it; nil while not listening.
    var clientsVersion: Int64? {
        let version = known.load(ordering: .acquiring)
        return version < 0 ? nil : version
    }

    /// A version read after a change this instance made itself: its next request sees it without waiting for the
    /// notice. Versions only grow, and nothing is kept while not listening.
    func noteClientsVersion(_ version: Int64) {
        var current = known.load(ordering: .relaxed)
        while current >= 0 && current < version {
            let (exchanged, original) = known.compareExchange(
                expected: current, desired: version, ordering: .acquiringAndReleasing)
            if exchanged { return }
            current = original
        }
    }

    func run() async throws {
        var pause = Duration.milliseconds(50)
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            let began = ContinuousClock.now
            do {
                try await cancelWhenGracefulShutdown { try await self.listen() }
            } catch {
                if Task.isCancelled || Task.isShuttingDownGracefully { break }
                PostgresStore.logger.warning(
                    "not hearing PostgreSQL's change notices; the clients' version is read per request meanwhile",
                    metadata: ["reason": "\(String(reflecting: error))", "retry_in": "\(pause)"])
            }
            known.store(-1, ordering: .releasing)
            // A connection that listened for a while starts the pauses over; one that keeps failing waits longer.
            if ContinuousClock.now - began > .seconds(10) { pause = .milliseconds(50) }
            try? await Task.sleep(for: pause)
            pause = min(pause * 2, .seconds(2))
        }
        known.store(-1, ordering: .releasing)
    }

    /// One connection's life: listen, read the version, then follow the notices until the connection ends.
    private func listen() async throws {
        let connection = try await PostgresDatabase.connect(
            location, extraParameters: [("application_name", Self.applicationName + (location.schema.map { " " + $0 } ?? ""))])
        do {
            try await connection.listen(on: Self.channel) { notices in
                // After LISTEN: a change committed from now on has a notice coming, one before is in this read.
                let rows = try await connection.rows(
                    "SELECT current_schema() AS schema, (SELECT version FROM change_counters WHERE name = 'clients') AS version")
                guard let row = rows.first else { return }
                let columns = Columns(row)
                let schema: String = try columns("schema")
                let version: Int64 = try columns("version")
                known.store(version, ordering: .releasing)
                for try await notice in notices {
                    let parts = notice.payload.split(separator: " ")
                    guard parts.count == 3, parts[0] == schema, parts[1] == "clients", let version = Int64(parts[2]) else {
                        continue
                    }
                    noteClientsVersion(version)
                }
            }
            try? await connection.close()
        } catch {
            try? await connection.close()
            throw error
        }
    }
}
