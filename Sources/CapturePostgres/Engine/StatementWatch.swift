import PostgresNIO
import Synchronization

/// The statements waiting for an answer, each with its connection, looked at every `interval` by one task: a statement
/// whose connection has closed is failed with `ConnectionEnded`. (postgres-nio at times neither answered nor failed a
/// statement sent on a connection the server had just ended.) A statement costs a task and two short locks; a timer
/// for each cost more than the statement's own work.
final class StatementWatch: Sendable {
    static let shared = StatementWatch()
    static let interval = Duration.milliseconds(250)

    private struct Waiting {
        let connection: PostgresConnection
        let continuation: CheckedContinuation<[PostgresRow], any Error>
    }

    private struct State {
        var waiting: [UInt64: Waiting] = [:]
        var next: UInt64 = 0
        var watching = false
    }

    private let state = Mutex(State())

    /// `statement`'s rows, or `ConnectionEnded` once `connection` is closed while it waits.
    func answer(
        on connection: PostgresConnection, _ statement: @escaping @Sendable () async throws -> [PostgresRow]
    ) async throws -> [PostgresRow] {
        try await withCheckedThrowingContinuation { continuation in
            let (id, startWatching) = state.withLock { state in
                state.next &+= 1
                state.waiting[state.next] = Waiting(connection: connection, continuation: continuation)
                defer { state.watching = true }
                return (state.next, !state.watching)
            }
            if startWatching { Task.detached { await self.watch() } }
            Task {
                let outcome: Result<[PostgresRow], any Error>
                do {
                    outcome = .success(try await statement())
                } catch {
                    outcome = .failure(error)
                }
                // Whoever takes the entry out answers: the statement, or the watch.
                state.withLock { $0.waiting.removeValue(forKey: id) }?.continuation.resume(with: outcome)
            }
        }
    }

    /// Runs for the rest of the process once a statement has been asked (a sleep every `interval`, a look at a few
    /// entries).
    private func watch() async {
        while true {
            try? await Task.sleep(for: Self.interval)
            let ended = state.withLock { state in
                let closed = state.waiting.filter { $0.value.connection.isClosed }
                for id in closed.keys { state.waiting[id] = nil }
                return Array(closed.values)
            }
            for waiting in ended { waiting.continuation.resume(throwing: ConnectionEnded()) }
        }
    }
}
