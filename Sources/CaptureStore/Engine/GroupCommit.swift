import GRDB
import Synchronization

/// Group commit for short, frequent writes (a refresh grant, a code exchange): the writes that arrive while a
/// transaction is being committed wait, then all run in the next transaction and are committed with one fsync. Each
/// caller resumes only after the commit that holds its write, so an acknowledged write is as durable as with a
/// transaction of its own (`synchronous = FULL`). Writes run one after another in the transaction; should one fail,
/// the transaction is rolled back and the group runs again with each write in a savepoint of its own, so the failing
/// write alone is lost (a savepoint for every write would cost two statements each, on the one writer, for a failure
/// that almost never comes). Nothing waits on a timer: with no write in progress, a write starts at once.
final class GroupCommit: Sendable {
    /// At most this many writes share a transaction, so one commit's wait stays short.
    static let batchLimit = 256

    private let writer: any DatabaseWriter
    private let state = Mutex(State())

    private struct State {
        var waiting: [any PendingWrite] = []
        var committing = false
    }

    init(writer: any DatabaseWriter) {
        self.writer = writer
    }

    /// `body` in the next group's transaction; returns once that transaction is committed.
    func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let leads = state.withLock { state in
                state.waiting.append(PendingItem(body: body, continuation: continuation))
                defer { state.committing = true }
                return !state.committing
            }
            if leads { commitNextGroup() }
        }
    }

    /// One group per GRDB write, so writes outside the group interleave between groups.
    private func commitNextGroup() {
        writer.asyncWriteWithoutTransaction { [self] db in
            let group: [any PendingWrite] = state.withLock { state in
                let group = Array(state.waiting.prefix(Self.batchLimit))
                state.waiting.removeFirst(group.count)
                return group
            }
            var failure: (any Error)?
            do {
                var allRan = true
                try db.inTransaction {
                    allRan = group.allSatisfy { $0.run(in: db, savepoint: false) }
                    return allRan ? .commit : .rollback
                }
                if !allRan {
                    try db.inTransaction {
                        for item in group { _ = item.run(in: db, savepoint: true) }
                        return .commit
                    }
                }
            } catch {
                failure = error
            }
            for item in group { item.finish(commitFailure: failure) }
            let more = state.withLock { state in
                state.committing = !state.waiting.isEmpty
                return state.committing
            }
            if more { commitNextGroup() }
        }
    }
}

private protocol PendingWrite: Sendable {
    /// Runs the write in the group's transaction (in a savepoint of its own when `savepoint`) and keeps its outcome;
    /// false when it failed.
    func run(in db: Database, savepoint: Bool) -> Bool
    /// Resumes the caller once the group's transaction is over.
    func finish(commitFailure: (any Error)?)
}

/// One caller's write. `outcome` is set and read on the writer's queue only, before and after the commit.
private final class PendingItem<T: Sendable>: PendingWrite, @unchecked Sendable {
    let body: @Sendable (Database) throws -> T
    let continuation: CheckedContinuation<T, any Error>
    private var outcome: Result<T, any Error> = .failure(CancellationError())

    init(body: @escaping @Sendable (Database) throws -> T, continuation: CheckedContinuation<T, any Error>) {
        self.body = body
        self.continuation = continuation
    }

    func run(in db: Database, savepoint: Bool) -> Bool {
        outcome = Result {
            guard savepoint else { return try body(db) }
            var value: T?
            try db.inSavepoint {
                value = try body(db)
                return .commit
            }
            guard let value else { throw CancellationError() }
            return value
        }
        if case .success = outcome { return true }
        return false
    }

    func finish(commitFailure: (any Error)?) {
        if let commitFailure, case .success = outcome {
            continuation.resume(throwing: commitFailure)
        } else {
            continuation.resume(with: outcome)
        }
    }
}
