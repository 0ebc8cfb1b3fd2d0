import CaptureCore
import GRDB

/// The database as a repository sees it: GRDB's `read`, `write` and `writeWithoutTransaction`, with `pointRead` and
/// `groupWrite` for the hot paths; each call timed into `capture_db_call_duration_seconds` with the repository's name
/// and the calling method. The one place database latency is measured (waiting for the writer included), so
/// repositories stay plain GRDB code.
struct MeteredDatabase: Sendable {
    let writer: any DatabaseWriter
    let repository: String
    let metrics: CaptureMetrics
    /// Connections for `pointRead`; nil reads everything through `writer`.
    let pointReaders: PointReaders?
    /// The groups `groupWrite` joins (one for the database).
    let groupCommit: GroupCommit

    func read<T: Sendable>(
        _ value: @Sendable (Database) throws -> T, operation: String = #function
    ) async throws -> T {
        try await measure(operation) { try await writer.read(value) }
    }

    /// A point read on the calling thread through `pointReaders` when one of their connections is free (else
    /// through GRDB's pool, like `read`). Only for short indexed lookups on hot paths: the caller's thread, an
    /// event loop in the server, waits for the read. WAL readers never wait for the writer.
    func pointRead<T: Sendable>(
        _ value: @Sendable (Database) throws -> T, operation: String = #function
    ) async throws -> T {
        try await measure(operation) {
            if let pointReaders, let result = try pointReaders.read(value) { return result }
            return try await writer.read(value)
        }
    }

    /// `pointRead` of a single statement, outside any transaction on a point reader (one statement reads one
    /// snapshot by itself).
    func statementRead<T: Sendable>(
        _ value: @Sendable (Database) throws -> T, operation: String = #function
    ) async throws -> T {
        try await measure(operation) {
            if let pointReaders, let result = try pointReaders.read(transaction: false, value) { return result }
            return try await writer.read(value)
        }
    }

    func write<T: Sendable>(
        _ updates: @Sendable (Database) throws -> T, operation: String = #function
    ) async throws -> T {
        try await measure(operation) { try await writer.write(updates) }
    }

    /// `write` for short, frequent writes: committed together with the others that arrive meanwhile (`GroupCommit`),
    /// returning after the commit.
    func groupWrite<T: Sendable>(
        _ updates: @escaping @Sendable (Database) throws -> T, operation: String = #function
    ) async throws -> T {
        try await measure(operation) { try await groupCommit.write(updates) }
    }

    func writeWithoutTransaction<T: Sendable>(
        _ updates: @Sendable (Database) throws -> T, operation: String = #function
    ) async throws -> T {
        try await measure(operation) { try await writer.writeWithoutTransaction(updates) }
    }

    /// A truncating checkpoint: the WAL's pages copied into the database file and the log emptied, so that page
    /// images from before a change (a cleared body, an erased record, which `secure_delete` zeroes in the new
    /// images) are left in no file. Best effort: a reader still holding an old snapshot makes SQLite stop early (after
    /// the busy timeout at most), and the next checkpoint, purge pass or clean shutdown finishes it.
    func truncateLog(operation: String = #function) async throws {
        try await writeWithoutTransaction({ db in _ = try? db.checkpoint(.truncate) }, operation: operation)
    }

    private func measure<T>(_ operation: String, _ call: () async throws -> T) async throws -> T {
        let clock = ContinuousClock()
        let start = clock.now
        defer { metrics.databaseCall(repository: repository, operation: operation, duration: clock.now - start) }
        return try await call()
    }
}
