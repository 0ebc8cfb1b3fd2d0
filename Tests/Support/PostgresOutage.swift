import CaptureCore
import Foundation
import Logging
import PostgresNIO
import Synchronization

extension PostgresTestServer {
    /// `body`'s outcome when the server ends the connection of every statement of it that touches `table` (in
    /// `location`'s schema): another session holds the table, and each backend that waits on it is ended with
    /// `pg_terminate_backend`, as a fast shutdown or an operator ends it, until `body` has its outcome (a read the
    /// store tries again on another connection is ended again).
    public nonisolated func endingTheStatementOn<T: Sendable>(
        _ table: String, of location: PostgresLocation, _ body: @escaping @Sendable () async throws -> T
    ) async throws -> Result<T, any Error> {
        let logger = Logger(label: "capture.test.postgres")
        let blocker = try await Self.connectWhenASlotFrees(location)
        func run(_ sql: String) async throws -> [PostgresRow] {
            try await blocker.query(PostgresQuery(unsafeSQL: sql), logger: logger).collect()
        }
        let relation = location.schema.map { "\"\($0)\".\(table)" } ?? table
        let work: Task<T, any Error>
        do {
            _ = try await run("BEGIN")
            _ = try await run("LOCK TABLE \(relation) IN ACCESS EXCLUSIVE MODE")
            let finished = Flag()
            work = Task {
                defer { finished.set() }
                return try await body()
            }
            for _ in 0..<1000 where !finished.isSet {  // 20 s at most
                for row in try await run("SELECT pid FROM pg_locks WHERE relation = '\(relation)'::regclass AND NOT granted") {
                    _ = try await run("SELECT pg_terminate_backend(\(try row.decode(Int32.self)))")
                }
                try await Task.sleep(for: .milliseconds(20))
            }
            _ = try await run("ROLLBACK")
        } catch {
            // A connection must be closed before it goes (postgres-nio asserts it in debug builds).
            try? await blocker.close()
            throw error
        }
        try await blocker.close()
        return await Self.within(.seconds(120), work)
    }

    /// `work`'s outcome, or a failure once `limit` has passed (the work is cancelled and left): a statement the
    /// driver never answers fails its test instead of holding the whole run.
    public nonisolated static func within<T: Sendable>(
        _ limit: Duration, _ work: Task<T, any Error>
    ) async -> Result<T, any Error> {
        let answered = Once()
        return await withCheckedContinuation { continuation in
            Task {
                let outcome = await work.result
                if answered.claim() { continuation.resume(returning: outcome) }
            }
            Task {
                try? await Task.sleep(for: limit)
                if answered.claim() {
                    work.cancel()
                    continuation.resume(returning: .failure(NoAnswer(limit: limit)))
                }
            }
        }
    }

    /// True for the first caller only.
    final class Once: Sendable {
        private let taken = Mutex(false)

        func claim() -> Bool {
            taken.withLock { taken in
                defer { taken = true }
                return !taken
            }
        }
    }

    /// Set once, read any time.
    final class Flag: Sendable {
        private let value = Mutex(false)

        func set() { value.withLock { $0 = true } }
        var isSet: Bool { value.withLock { $0 } }
    }

    /// The statement cut off was never answered.
    public struct NoAnswer: Error, CustomStringConvertible {
        let limit: Duration
        public var description: String { "no answer within \(limit) after the server ended the connection" }
    }
}
