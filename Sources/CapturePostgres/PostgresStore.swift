import CaptureCore
import Logging
import PostgresNIO
import Synchronization

/// The connection pool as a repository sees it: a query, or a transaction on one connection, each timed into
/// `capture_db_call_duration_seconds` with the repository's name and the calling method, as `MeteredDatabase`
/// does for SQLite.
struct PostgresStore: Sendable {
    let client: PostgresClient
    let repository: String
    let metrics: CaptureMetrics
    /// The change notices, when this instance keeps token checks: told of its own transactions' changes.
    var changes: PostgresChangeListener? = nil
    /// How long a call waits for a connection once the database has been unavailable (`connect_timeout`).
    var leaseLimit = Duration.seconds(10)
    /// Set when a call finds the database unavailable, cleared by the next connection handed out in time.
    let unsettled = LeaseWatch()

    /// postgres-nio logs each query's text at debug and its failures at error; neither is the service's log (a
    /// failure reaches the caller as an error), so only warnings get through.
    static let logger: Logger = {
        var logger = Logger(label: "capture.postgres")
        logger.logLevel = .warning
        return logger
    }()

    /// The rows of one statement, on a pooled connection (autocommit), through `rows`: on a connection the server
    /// ended it fails rather than waits. A read that fails so is read once more on another connection: the pool can
    /// hand out a connection the server has just ended before it has seen it close (a write is not sent twice).
    @discardableResult
    func query(_ query: PostgresQuery, operation: String = #function) async throws -> [PostgresRow] {
        try await measure(operation) {
            do {
                return try await leased { connection in try await connection.rows(query) }
            } catch let error where Self.meansUnavailable(error) && query.sql.hasPrefix("SELECT") {
                unsettled.set()
                return try await leased { connection in try await connection.rows(query) }
            }
        }
    }

    /// The rows of a prepared statement that only reads (`PostgresPreparedStatement`: prepared once per connection,
    /// planned once), as `query` reads them.
    func read<Statement: PostgresPreparedStatement>(
        prepared statement: Statement, operation: String = #function
    ) async throws -> [PostgresRow] where Statement.Row == PostgresRow {
        try await measure(operation) {
            do {
                return try await leased { connection in try await connection.rows(statement) }
            } catch let error where Self.meansUnavailable(error) {
                unsettled.set()
                return try await leased { connection in try await connection.rows(statement) }
            }
        }
    }

    /// Whether `error` says the database cannot be reached for a moment (`PSQLError.meansUnavailable`, or a
    /// connection closed under a statement).
    static func meansUnavailable(_ error: any Error) -> Bool {
        (error as? PSQLError)?.meansUnavailable == true || error is ConnectionEnded
    }

    /// `body` on a pooled connection that is open: one the server has ended, and whose closing the pool has not
    /// taken in yet, is handed back unused for another (a statement sent on it would fail, or worse, wait).
    ///
    /// postgres-nio's pool keeps a caller waiting for a connection for as long as it cannot open one (the server
    /// restarting, or at its connection limit), and gives up only through its circuit breaker (a minute of failures
    /// with no connection open) with an error of its own. So the pool failing to hand one out is `ConnectionEnded`
    /// (unavailable: 503), and once a call has found the database unavailable (`unsettled`), a connection is waited
    /// for at most `leaseLimit` (`connect_timeout`) until one comes in time again.
    private func leased<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        for _ in 0..<Self.leaseAttempts {
            let outcome: T? = try await lease { connection in
                connection.isClosed ? nil : try await body(connection)
            }
            if let outcome { return outcome }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw ConnectionEnded()
    }

    private func lease<T: Sendable>(_ body: (PostgresConnection) async throws -> T?) async throws -> T? {
        if unsettled.isSet { return try await leaseWithin(leaseLimit, body) }
        var lent = false
        do {
            return try await client.withConnection { connection in
                lent = true
                return try await body(connection)
            }
        } catch  where !lent {
            throw ConnectionEnded()
        }
    }

    /// `body` on a connection a task of its own leases and lends until `body` returns; `ConnectionEnded` when none
    /// is handed out within `limit` (the lease is then given up).
    private func leaseWithin<T: Sendable>(
        _ limit: Duration, _ body: (PostgresConnection) async throws -> T?
    ) async throws -> T? {
        let (returned, giveBack) = AsyncStream<Never>.makeStream()
        defer { giveBack.finish() }
        let answered = FirstAnswer()
        let connection: PostgresConnection = try await withCheckedThrowingContinuation { handover in
            let timer = Task {
                try await Task.sleep(for: limit)
                guard answered.claim() else { return }
                handover.resume(throwing: ConnectionEnded())
            }
            Task { [client] in
                do {
                    try await client.withConnection { connection in
                        // Handed out after the caller gave up: back to the pool at once.
                        guard answered.claim() else { return }
                        timer.cancel()
                        handover.resume(returning: connection)
                        for await _ in returned {}
                    }
                } catch {
                    if answered.claim() { handover.resume(throwing: ConnectionEnded()) }
                }
            }
        }
        unsettled.clear()
        return try await body(connection)
    }

    static let leaseAttempts = 20

    /// `body` in one transaction (READ COMMITTED): committed when it returns, rolled back when it throws. Rows a
    /// decision depends on are read `FOR UPDATE`, or under an advisory lock when they may not exist yet.
    ///
    /// With `changes`, the rows the transaction's triggers named (`capture.changes`, `PostgresMigrations`) are read
    /// before the commit and stamped after it, before the caller answers: a token revoked here is refused here at
    /// once. A write to `tokens` or `users` made outside a transaction is seen when its notice comes back.
    /// `mayTellChanges` is false for a result whose transaction cannot have changed what a kept check depends on:
    /// the read is skipped.
    func transaction<T: Sendable>(
        operation: String = #function, mayTellChanges: (T) -> Bool = { _ in true },
        _ body: (PostgresConnection) async throws -> T
    ) async throws -> T {
        try await measure(operation) {
            let (result, changed) = try await leased { connection in
                try await connection.transaction { connection in
                    let result = try await body(connection)
                    guard changes != nil, mayTellChanges(result) else { return (result, "") }
                    let told = try await connection.rows("SELECT current_setting('capture.changes', true) AS told")
                    return (result, try told.first.flatMap { try Columns($0)("told", as: String?.self) } ?? "")
                }
            }
            if !changed.isEmpty { changes?.noteOwnChanges(changed) }
            return result
        }
    }

    private func measure<T>(_ operation: String, _ call: () async throws -> T) async throws -> T {
        let clock = ContinuousClock()
        let start = clock.now
        defer { metrics.databaseCall(repository: repository, operation: operation, duration: clock.now - start) }
        do {
            return try await call()
        } catch let error where Self.meansUnavailable(error) {
            unsettled.set()
            throw CaptureError.storageUnavailable
        }
    }
}

extension PSQLError {
    /// SQLSTATEs that say the server cannot take work now, whatever the statement: `admin_shutdown`, `crash_shutdown`,
    /// `cannot_connect_now` (starting or recovering), `too_many_connections`. (Class 08, connection exceptions, too.)
    static let unavailableStates: Set<String> = ["57P01", "57P02", "57P03", tooManyConnections]

    /// Whether this failure says the database cannot be reached for a moment (a connection lost or refused, the
    /// server shutting down or starting, no slot free) rather than that the statement was wrong: the caller is told
    /// to try again (`CaptureError.storageUnavailable`), never given a 500.
    var meansUnavailable: Bool {
        switch code {
        case .serverClosedConnection, .clientClosedConnection, .connectionError, .uncleanShutdown, .poolClosed: return true
        case .server:
            let state = serverInfo?[.sqlState] ?? ""
            return state.hasPrefix("08") || Self.unavailableStates.contains(state)
        default: return false
        }
    }
}

extension PostgresConnection {
    /// `body` between BEGIN and COMMIT, rolled back when it throws, with the caller's error (a refusal thrown inside,
    /// or the server's) rethrown as it is. A connection the server ended is closed rather than sent a ROLLBACK:
    /// postgres-nio's `withTransaction` sent one, which on a connection ended mid-transaction (a restart's fast
    /// shutdown) was at times never answered, holding the request and its pool slot for ever.
    func transaction<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        try await rows("BEGIN")
        let value: T
        do {
            value = try await body(self)
        } catch {
            if PostgresStore.meansUnavailable(error) {
                try? await close()
            } else {
                try? await rows("ROLLBACK")
            }
            throw error
        }
        try await rows("COMMIT")
        return value
    }

    /// The rows of one statement. A statement sent on a connection the server has just ended (a restart's fast
    /// shutdown between two statements of a transaction) was at times neither answered nor failed by postgres-nio:
    /// while it waits, `StatementWatch` fails it as `ConnectionEnded` once the connection is closed (the statement's
    /// task is left to end with it).
    @discardableResult
    func rows(_ query: PostgresQuery) async throws -> [PostgresRow] {
        try await StatementWatch.shared.answer(on: self) { try await self.query(query, logger: PostgresStore.logger).collect() }
    }

    /// A prepared statement's rows, watched as `rows(_:)` watches a statement's.
    func rows<Statement: PostgresPreparedStatement>(
        _ statement: Statement
    ) async throws -> [PostgresRow] where Statement.Row == PostgresRow {
        try await StatementWatch.shared.answer(on: self) {
            var rows: [PostgresRow] = []
            for try await row in try await self.execute(statement, logger: PostgresStore.logger) { rows.append(row) }
            return rows
        }
    }

    /// Holds a transaction-scoped lock on `name` until commit: serializes decisions about rows that may not exist
    /// yet (a throttle counter's first failure, the next Janrain number). Advisory locks are the database's, not the
    /// schema's: the name is taken within the connection's schema, so stores sharing a database (a schema each) never
    /// wait for each other's locks.
    func lock(_ name: String) async throws {
        try await rows("SELECT pg_advisory_xact_lock(hashtextextended(coalesce(current_schema(), '') || ':' || \(name), 0))")
    }
}

/// A row's columns by name.
struct Columns {
    private let row: PostgresRandomAccessRow

    init(_ row: PostgresRow) {
        self.row = row.makeRandomAccess()
    }

    func callAsFunction<T: PostgresDecodable>(_ name: String, as: T.Type = T.self) throws -> T {
        try row[name].decode(T.self)
    }
}

extension PSQLError {
    /// The SQLSTATE of a server error (`23505` is a unique violation), and the constraint it names.
    var sqlState: String? { serverInfo?[.sqlState] }
    var constraint: String? { serverInfo?[.constraintName] }
    var isUniqueViolation: Bool { sqlState == "23505" }
}

/// A statement's connection was closed while it waited (`PostgresConnection.rows`), or the pool handed out none in
/// time (`PostgresStore.leased`): the database is unavailable.
struct ConnectionEnded: Error {}

/// Whether a store's calls have found the database unavailable since a connection last came in time: one flag, read
/// on every lease.
final class LeaseWatch: Sendable {
    private let flag = Atomic(false)

    var isSet: Bool { flag.load(ordering: .relaxed) }
    func set() { flag.store(true, ordering: .relaxed) }
    func clear() { flag.store(false, ordering: .relaxed) }
}
