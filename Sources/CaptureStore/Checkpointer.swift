import Dispatch
import GRDB
import Synchronization

/// Copies the WAL back into the database file on a connection and queue of its own, shortly after commits, so
/// that the writer does not. SQLite's automatic checkpoint runs on the connection whose commit crossed 1000 pages,
/// that is on the one writer, which every write then waits behind (page copies and the database file's fsync: a
/// third of the writer's time under a refresh load). A passive checkpoint never blocks the writer or readers;
/// the writer keeps an automatic checkpoint at `writerCheckpointPages` in case this one falls behind.
final class Checkpointer: TransactionObserver, Sendable {
    /// Commits that come together share one checkpoint this long after the first of them.
    static let delay = DispatchTimeInterval.milliseconds(50)
    static let writerCheckpointPages = 10_000

    private let path: String
    private let queue = DispatchQueue(label: "capture.checkpointer")
    /// Opened on the first checkpoint; used on `queue` only.
    private let connection = Mutex<DatabaseQueue?>(nil)
    private let scheduled = Atomic<Bool>(false)

    private init(path: String) {
        self.path = path
    }

    /// A checkpointer observing `pool`'s writer; it lives as long as the caller keeps it.
    static func start(on pool: DatabasePool) throws -> Checkpointer {
        let checkpointer = Checkpointer(path: pool.path)
        try pool.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA wal_autocheckpoint = \(writerCheckpointPages)")
            db.add(transactionObserver: checkpointer, extent: .observerLifetime)
        }
        return checkpointer
    }

    func databaseDidCommit(_ db: Database) {
        guard !scheduled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        queue.asyncAfter(deadline: .now() + Self.delay) { [self] in
            // Cleared first: a commit during the checkpoint schedules the next one.
            scheduled.store(false, ordering: .releasing)
            try? checkpoint()
        }
    }

    private func checkpoint() throws {
        try connection.withLock { connection in
            if connection == nil {
                var configuration = Configuration()
                configuration.label = "capture.checkpointer"
                connection = try DatabaseQueue(path: path, configuration: configuration)
            }
            try connection?.writeWithoutTransaction { db in _ = try db.checkpoint(.passive) }
        }
    }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { false }
    func databaseDidChange(with event: DatabaseEvent) {}
    func databaseDidRollback(_ db: Database) {}
}
