import CaptureCore
import CapturePostgres
import CaptureStore
import Foundation
import GRDB
import ServiceLifecycle

/// The store a `DatabaseLocation` names, open: its repositories, and how to close it. What the server, capturectl,
/// the benchmark and the tests open storage through; each backend stays in its own target.
public struct OpenedStorage: Sendable {
    public let location: DatabaseLocation
    public let repositories: Repositories
    /// Every record as domain values, for `capturectl db copy`.
    public let records: any RecordCopying
    /// The SQLite file's pool, for the few callers that work on the file itself (tests); nil on PostgreSQL.
    public let sqlite: DatabasePool?
    /// What must run beside the server for the repositories to answer, for its service group (opened with
    /// `service: true`): PostgreSQL's connection pool and its change notices' listener. Empty for SQLite, and for
    /// stores that run their own.
    public let services: [any Service]
    private let closer: @Sendable () async throws -> Void

    public func close() async throws {
        try await closer()
    }

    /// Opens and migrates the store: a SQLite file (created with its directory when missing) or a PostgreSQL
    /// database (which must exist; its tables are created). Database calls are timed into `metrics`. `service`: the
    /// long-running server, whose SQLite writer leaves WAL checkpoints to a background connection (`WALCheckpointer`)
    /// and whose service group runs PostgreSQL's pool (`services`): no query is answered until the group runs.
    public static func open(
        _ location: DatabaseLocation, metrics: CaptureMetrics = .facade, service: Bool = false
    ) async throws -> OpenedStorage {
        switch location {
        case .sqlite(let path):
            let checkpointer = service ? WALCheckpointer(path: path) : nil
            let pool = try CaptureDatabase.open(path: path, checkpointer: checkpointer)
            let (repositories, close) = CaptureDatabase.repositoriesClosing(pool, metrics: metrics, checkpointer: checkpointer)
            return OpenedStorage(
                location: location, repositories: repositories, records: SQLiteRecordCopy(pool), sqlite: pool, services: [],
                closer: close)
        case .postgres(let server):
            let database = try await PostgresDatabase.open(server, runsPool: !service)
            return OpenedStorage(
                location: location, repositories: database.repositories(metrics: metrics),
                records: database.recordCopy(metrics: metrics), sqlite: nil, services: service ? database.services : [],
                closer: { await database.close() })
        }
    }
}
