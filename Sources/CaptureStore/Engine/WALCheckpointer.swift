import Dispatch
import GRDB
import GRDBSQLite
import Synchronization

/// The service's WAL checkpoints, on a connection and a thread of their own instead of on the one writer.
///
/// SQLite checkpoints a WAL database on the connection that commits, once the log holds 1,000 pages: that commit then
/// copies the log's pages into the database file and waits for the file's fsync, and every write queued behind it (a
/// group of refresh grants) waits as well. With a checkpointer installed on the writer, the writer only reports: after
/// each commit SQLite hands it the log's length (`sqlite3_wal_hook`, which takes the automatic checkpoint's place), and
/// from `threshold` pages on, a passive checkpoint runs on this checkpointer's own connection, in the background,
/// while the writer goes on appending to the log. A passive checkpoint never waits for a reader or the writer.
///
/// Should the log reach `writerLimit` pages all the same (checkpoints failing, or held back behind long reads), the
/// writer checkpoints as SQLite's automatic checkpoint would, so the log stays bounded either way.
public final class WALCheckpointer: Sendable {
    /// Pages in the log from which a commit asks for a background checkpoint.
    let threshold: Int32
    /// Pages in the log from which the writer checkpoints by itself.
    let writerLimit: Int32
    private let path: String
    private let queue = DispatchQueue(label: "capture.wal-checkpoint", qos: .utility)
    private let state = Mutex(State())

    private struct State {
        var scheduled = false
        var connection: DatabaseQueue?
        var closed = false
    }

    /// For the database file at `path`, from SQLite's own automatic threshold (1,000 pages) on; the writer steps in
    /// at 16,000 (64 MiB of 4 KiB pages). `CaptureDatabase.open` installs it on the file's writer.
    public convenience init(path: String) {
        self.init(path: path, threshold: 1000, writerLimit: 16_000)
    }

    init(path: String, threshold: Int32, writerLimit: Int32) {
        self.path = path
        self.threshold = threshold
        self.writerLimit = max(threshold, writerLimit)
    }

    /// Takes the place of the automatic checkpoint on `db`, the pool's writer. The checkpointer must outlive the
    /// connection: the pool's configuration holds it.
    func install(on db: Database) {
        sqlite3_wal_hook(
            db.sqliteConnection,
            { context, connection, _, pages in
                guard let context else { return SQLITE_OK }
                Unmanaged<WALCheckpointer>.fromOpaque(context).takeUnretainedValue().committed(pages: pages, on: connection)
                return SQLITE_OK
            },
            Unmanaged.passUnretained(self).toOpaque())
    }

    /// Called by SQLite on the writer right after a commit, with the pages the log now holds.
    private func committed(pages: Int32, on connection: OpaquePointer?) {
        if pages >= writerLimit {
            sqlite3_wal_checkpoint_v2(connection, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
            return
        }
        guard pages >= threshold else { return }
        let schedule = state.withLock { state in
            defer { state.scheduled = true }
            return !state.scheduled && !state.closed
        }
        if schedule { queue.async { self.checkpoint() } }
    }

    /// Waits for a checkpoint in progress and closes the checkpointer's connection; none is started after. The
    /// store's own last checkpoint, when it closes, then finds no other one running.
    public func close() {
        queue.sync {
            let connection = state.withLock { state in
                state.closed = true
                defer { state.connection = nil }
                return state.connection
            }
            try? connection?.close()
        }
    }

    private func checkpoint() {
        defer { state.withLock { $0.scheduled = false } }
        guard let connection = try? connection() else { return }
        // Busy (another process checkpointing, a database being closed): the next commit past the threshold asks again.
        _ = try? connection.writeWithoutTransaction { db in try db.checkpoint(.passive) }
    }

    /// The checkpointer's connection, opened on first use (on the queue); nil once closed.
    private func connection() throws -> DatabaseQueue? {
        try state.withLock { state in
            if state.closed { return nil }
            if state.connection == nil { state.connection = try Self.open(path) }
            return state.connection
        }
    }

    private static func open(_ path: String) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.label = "capture.wal-checkpoint"
        // The checkpoint syncs the log before it copies pages, and the database file after (as the writer's would).
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        return try DatabaseQueue(path: path, configuration: configuration)
    }
}
