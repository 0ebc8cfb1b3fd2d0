import CaptureCore
import GRDB

/// The database as a repository sees it: GRDB's `read`, `write` and `writeWithoutTransaction`, each call timed into
/// `capture_db_call_duration_seconds` with the repository's name and the calling method. The one place database
/// latency is measured (waiting for the writer included), so repositories stay plain GRDB code.
struct MeteredDatabase: Sendable {
    let writer: any DatabaseWriter
    let repository: String
    let metrics: CaptureMetrics

    func read<T: Sendable>(
        _ value: @Sendable (Database) throws -> T, operation: String = #function
    ) async throws -> T {
        try await measure(operation) { try await writer.read(value) }
    }

    func write<T: Sendable>(
        _ updates: @Sendable (Database) throws -> T, operation: String = #function
    ) async throws -> T {
        try await measure(operation) { try await writer.write(updates) }
    }

    func writeWithoutTransaction<T: Sendable>(
        _ updates: @Sendable (Database) throws -> T, operation: String = #function
    ) async throws -> T {
        try await measure(operation) { try await writer.writeWithoutTransaction(updates) }
    }

    private func measure<T>(_ operation: String, _ call: () async throws -> T) async throws -> T {
        let clock = ContinuousClock()
        let start = clock.now
        defer { metrics.databaseCall(repository: repository, operation: operation, duration: clock.now - start) }
        return try await call()
    }
}
