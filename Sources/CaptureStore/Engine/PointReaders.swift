import Foundation
import GRDB
import Synchronization

/// Read-only connections to the database file for the point reads of hot paths (a token check), used on the
/// caller's own thread: no hop to GRDB's reader queue and back, which cost a third of a token check's time.
///
/// Taking a connection never waits. GRDB's reader pool cannot be used this way: a reader taken by an async read is
/// released only when that task resumes, on an event loop in the server, so an event loop waiting for a reader can
/// wait for itself. Here, when every connection is in use, `read` answers nil and the caller reads through the pool.
/// At most `capacity` connections are opened (one per core: the threads that run requests).
final class PointReaders: Sendable {
    private let path: String
    private let capacity: Int
    private let state = Mutex(State())

    private struct State {
        var idle: [DatabaseQueue] = []
        var opened = 0
        var closed = false
    }

    init(path: String, capacity: Int = ProcessInfo.processInfo.activeProcessorCount) {
        self.path = path
        self.capacity = max(1, capacity)
    }

    /// `value` on a free connection of this thread's own, or nil when none is free: in a read transaction, or
    /// without one when `value` runs a single statement (SQLite reads one statement from one snapshot by itself,
    /// and BEGIN and COMMIT cost as much as a point lookup).
    func read<T>(transaction: Bool = true, _ value: (Database) throws -> T) throws -> T? {
        guard let connection = try take() else { return nil }
        defer { giveBack(connection) }
        return transaction ? try connection.read(value) : try connection.inDatabase(value)
    }

    /// Closes the connections and opens no more (reads then go to the pool, until it closes too); one in use closes
    /// when its read ends.
    func close() {
        let idle = state.withLock { state in
            state.closed = true
            defer { state.idle = [] }
            return state.idle
        }
        for connection in idle { try? connection.close() }
    }

    private func giveBack(_ connection: DatabaseQueue) {
        let closed = state.withLock { state in
            if !state.closed { state.idle.append(connection) }
            return state.closed
        }
        if closed { try? connection.close() }
    }

    private func take() throws -> DatabaseQueue? {
        enum Taken { case idle(DatabaseQueue), open, none }
        let taken: Taken = state.withLock { state in
            if state.closed { return .none }
            if let connection = state.idle.popLast() { return .idle(connection) }
            guard state.opened < capacity else { return .none }
            state.opened += 1
            return .open
        }
        switch taken {
        case .idle(let connection): return connection
        case .none: return nil
        case .open:
            do {
                return try Self.open(path)
            } catch {
                state.withLock { $0.opened -= 1 }
                throw error
            }
        }
    }

    private static func open(_ path: String) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.readonly = true
        // A WAL reader waits only while another connection recovers the file; never long on an event loop.
        configuration.busyMode = .timeout(1)
        configuration.label = "capture.point-reader"
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA cache_size = \(CaptureDatabase.readerCacheKiB)") }
        return try DatabaseQueue(path: path, configuration: configuration)
    }
}
