import CaptureCore
import Logging
import PostgresNIO

/// The connection pool as a repository sees it: a query, or a transaction on one connection, each timed into
/// `capture_db_call_duration_seconds` with the repository's name and the calling method, as `MeteredDatabase`
/// does for SQLite.
struct PostgresStore: Sendable {
    let client: PostgresClient
    let repository: String
    let metrics: CaptureMetrics

    /// postgres-nio logs each query's text at debug and its failures at error; neither is the service's log (a
    /// failure reaches the caller as an error), so only warnings get through.
    static let logger: Logger = {
        var logger = Logger(label: "capture.postgres")
        logger.logLevel = .warning
        return logger
    }()

    /// The rows of one statement, on a pooled connection (autocommit).
    @discardableResult
    func query(_ query: PostgresQuery, operation: String = #function) async throws -> [PostgresRow] {
        try await measure(operation) { try await client.query(query, logger: Self.logger).collect() }
    }

    /// `body` in one transaction (READ COMMITTED): committed when it returns, rolled back when it throws. Rows a
    /// decision depends on are read `FOR UPDATE`, or under an advisory lock when they may not exist yet.
    func transaction<T: Sendable>(
        operation: String = #function, _ body: (PostgresConnection) async throws -> T
    ) async throws -> T {
        try await measure(operation) {
            do {
                return try await client.withConnection { connection in
                    try await connection.withTransaction(logger: Self.logger) { connection in try await body(connection) }
                }
            } catch let error as PostgresTransactionError {
                // The caller's own error (a refusal thrown inside) or the server's, not postgres-nio's wrapper.
                throw error.closureError ?? error.beginError ?? error.commitError ?? error
            }
        }
    }

    private func measure<T>(_ operation: String, _ call: () async throws -> T) async throws -> T {
        let clock = ContinuousClock()
        let start = clock.now
        defer { metrics.databaseCall(repository: repository, operation: operation, duration: clock.now - start) }
        do {
            return try await call()
        } catch let error as PSQLError where error.meansUnavailable {
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
    /// The rows of one statement inside a transaction.
    @discardableResult
    func rows(_ query: PostgresQuery) async throws -> [PostgresRow] {
        try await self.query(query, logger: PostgresStore.logger).collect()
    }

    /// Holds a transaction-scoped lock on `name` until commit: serializes decisions about rows that may not exist
    /// yet (a throttle counter's first failure, the next Janrain number).
    func lock(_ name: String) async throws {
        try await rows("SELECT pg_advisory_xact_lock(hashtextextended(\(name), 0))")
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
