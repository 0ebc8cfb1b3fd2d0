import CaptureCache
import CaptureCore
import Logging
import PostgresNIO
import ServiceLifecycle
import Synchronization

/// What other connections, processes and instances change, as PostgreSQL tells it: the triggers of the writing
/// transaction send a notice on `capture_changes` (`"<schema> <subject> <keys>"`, `PostgresMigrations`), delivered at
/// its commit, which this service hears on a connection of its own. It keeps the clients' version, so that a request
/// needs no round trip to learn it, and stamps the rows named in `stamps`, which retire the token checks kept in
/// memory (`TokenCheckCache`). Until the connection listens (at start, after it dropped, while the server restarts)
/// the version is unknown and callers read it from the database, and `stamps` is suspended, so every check is read;
/// once back, it reads the version afresh and stamps everything before it answers again. A heartbeat on the
/// connection finds one that went silent within `heartbeatLimit`. Another instance's change is seen here once its
/// notice arrives (milliseconds on a healthy server).
final class PostgresChangeListener: Service, Sendable {
    static let channel = "capture_changes"
    /// How its connection names itself in `pg_stat_activity` (with the schema, when the location names one).
    static let applicationName = "capture-bridge changes"
    /// How often the heartbeat asks, and how long an answer may take before the connection is given up: generous,
    /// because a busy server or process answers late and every false alarm empties the cache.
    static let heartbeatInterval = Duration.seconds(1)
    static let heartbeatLimit = Duration.seconds(3)

    private let location: PostgresLocation
    /// The clients' version; -1 while not listening.
    private let known = Atomic<Int64>(-1)
    /// When rows last changed, as far as this process has heard: suspended while not listening.
    let stamps: ChangeStamps

    init(location: PostgresLocation) {
        self.location = location
        stamps = ChangeStamps.inMemory()
        stamps.suspend()
    }

    /// The clients' version as the last notice (or the read after listening began) gave it; nil while not listening.
    var clientsVersion: Int64? {
        let version = known.load(ordering: .acquiring)
        return version < 0 ? nil : version
    }

    /// A version read after a change this instance made itself: its next request sees it without waiting for the
    /// notice. Versions only grow, and nothing is kept while not listening.
    func noteClientsVersion(_ version: Int64) {
        stamps.changed([.everything])
        var current = known.load(ordering: .relaxed)
        while current >= 0 && current < version {
            let (exchanged, original) = known.compareExchange(
                expected: current, desired: version, ordering: .acquiringAndReleasing)
            if exchanged { return }
            current = original
        }
    }

    /// The changes a transaction of this instance made (`capture.changes`, `;`-separated), after its commit: its
    /// own kept checks go at once, before the reply, not once the notices come back.
    func noteOwnChanges(_ changes: String) {
        for change in changes.split(separator: ";") { note(change) }
    }

    /// One change, `"<subject> <keys>"`: row keys separated by commas, or `all`. Anything not understood retires
    /// everything.
    private func note(_ change: Substring) {
        let parts = change.split(separator: " ", maxSplits: 1)
        guard parts.count == 2 else { return stamps.changed([.everything]) }
        let keys = parts[1]
        switch parts[0] {
        case "clients":
            guard let version = Int64(keys) else { return stamps.changed([.everything]) }
            noteClientsVersion(version)
        case "tokens", "users":
            let rows = keys.split(separator: ",").compactMap { Int64($0) }
            guard keys != "all", !rows.isEmpty else { return stamps.changed([.everything]) }
            stamps.changed(rows.map { parts[0] == "tokens" ? .token(rowID: $0) : .user(rowID: $0) })
        default:
            stamps.changed([.everything])
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
                    "not hearing PostgreSQL's change notices; token checks and the clients' version are read per request meanwhile",
                    metadata: ["reason": "\(String(reflecting: error))", "retry_in": "\(pause)"])
            }
            stopListening()
            // A connection that listened for a while starts the pauses over; one that keeps failing waits longer.
            if ContinuousClock.now - began > .seconds(10) { pause = .milliseconds(50) }
            try? await Task.sleep(for: pause)
            pause = min(pause * 2, .seconds(2))
        }
        stopListening()
    }

    private func stopListening() {
        stamps.suspend()
        known.store(-1, ordering: .releasing)
    }

    /// One connection's life: listen, read the version, then follow the notices until the connection ends or stops
    /// answering.
    private func listen() async throws {
        let connection = try await PostgresDatabase.connect(
            location, extraParameters: [("application_name", Self.applicationName + (location.schema.map { " " + $0 } ?? ""))])
        do {
            try await connection.listen(on: Self.channel) { notices in
                // After LISTEN: a change committed from now on has a notice coming, one before is in this read (the
                // version) or before `resume` (the rows: everything kept earlier is retired).
                let rows = try await connection.rows(
                    "SELECT current_schema() AS schema, (SELECT version FROM change_counters WHERE name = 'clients') AS version")
                guard let row = rows.first else { return }
                let columns = Columns(row)
                let schema: String = try columns("schema")
                let version: Int64 = try columns("version")
                stamps.resume()
                known.store(version, ordering: .releasing)
                // Whichever ends first (the notices, or a heartbeat not answered) ends the connection's life.
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { try await Self.heartbeat(connection) }
                    group.addTask {
                        for try await notice in notices {
                            let payload = notice.payload
                            guard payload.hasPrefix(schema + " ") else { continue }
                            self.note(payload.dropFirst(schema.count + 1))
                        }
                    }
                    defer { group.cancelAll() }
                    try await group.next()
                }
            }
            try? await connection.close()
        } catch {
            try? await connection.close()
            throw error
        }
    }

    /// Asks the connection for an answer every `heartbeatInterval`; throws once one takes longer than `heartbeatLimit`.
    private static func heartbeat(_ connection: PostgresConnection) async throws {
        while true {
            try await Task.sleep(for: heartbeatInterval)
            try await within(heartbeatLimit) { try await connection.rows("SELECT 1") }
        }
    }
}
