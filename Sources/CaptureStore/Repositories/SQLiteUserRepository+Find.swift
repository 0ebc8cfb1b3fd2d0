import CaptureCore
import Dispatch
import GRDB
import GRDBSQLite

/// `entity.find` and `entity.count`: the filter compiled to SQL (`SQLiteFilterSQL`) and run on a reader, stopped at
/// its deadline by a progress handler (SQLite then fails the statement with SQLITE_INTERRUPT).
extension SQLiteUserRepository {
    func find(_ query: EntityQuery) async throws -> [User] {
        let (condition, filterArguments) = query.filter.map(SQLiteFilterSQL.condition) ?? ("1", StatementArguments())
        let sql = """
            SELECT * FROM users WHERE \(condition)
            ORDER BY \(SQLiteFilterSQL.orderBy(query.order)) LIMIT ? OFFSET ?
            """
        let arguments = filterArguments + [query.maxResults, query.firstResult]
        return try await writer.read { db in
            try Self.withDeadline(query.timeout, in: db) {
                // Cached by its text: a filter's SQL holds its shape only (values are arguments), so a backend's
                // repeated lookups (by email, by id pages) compile once per connection.
                try UserRow.fetchAll(try db.cachedStatement(sql: sql), arguments: arguments).map(\.value)
            }
        }
    }

    func count(_ filter: EntityFilter?, timeout: Duration) async throws -> Int {
        let (condition, arguments) = filter.map(SQLiteFilterSQL.condition) ?? ("1", StatementArguments())
        return try await writer.read { db in
            try Self.withDeadline(timeout, in: db) {
                try Int.fetchOne(
                    try db.cachedStatement(sql: "SELECT COUNT(*) FROM users WHERE \(condition)"), arguments: arguments) ?? 0
            }
        }
    }

    /// One index per unique or `indexed` profile attribute, on `SQLiteFilterSQL.expression(of:)`; the filter indexes of
    /// attributes no longer marked are dropped.
    func prepareFilterIndexes(for schema: EntitySchema) async throws {
        var wanted: [String: String] = [:]
        for field in schema.indexedFilterFields {
            let expression = SQLiteFilterSQL.expression(of: .profile(field))
            wanted[FilterIndexName.name(forExpression: expression)] = expression
        }
        let indexes = wanted
        try await writer.write { db in
            let existing = try String.fetchAll(
                db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'users' AND name GLOB ?",
                arguments: [FilterIndexName.prefix + "*"])
            // Names are `FilterIndexName`'s (a prefix and hex digits), and expressions `SQLiteFilterSQL`'s.
            for name in existing where indexes[name] == nil { try db.execute(sql: "DROP INDEX \(name)") }
            for (name, expression) in indexes.sorted(by: { $0.key < $1.key }) where !existing.contains(name) {
                try db.execute(sql: "CREATE INDEX IF NOT EXISTS \(name) ON users (\(expression))")
            }
        }
    }

    /// How many virtual machine steps SQLite runs between two looks at the clock.
    static let stepsBetweenChecks: Int32 = 200

    /// `body` on `db` with a progress handler that interrupts its statements once `timeout` has passed, which then
    /// throws `EntityQuery.timedOut`. The handler is the connection's only while `body` runs.
    static func withDeadline<T>(_ timeout: Duration, in db: Database, _ body: () throws -> T) throws -> T {
        let (seconds, attoseconds) = timeout.components
        let nanoseconds = UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000)
        let deadline = UnsafeMutablePointer<UInt64>.allocate(capacity: 1)
        deadline.initialize(to: DispatchTime.now().uptimeNanoseconds &+ nanoseconds)
        defer { deadline.deallocate() }
        sqlite3_progress_handler(
            db.sqliteConnection, stepsBetweenChecks,
            { context in
                guard let context else { return 0 }
                return DispatchTime.now().uptimeNanoseconds > context.load(as: UInt64.self) ? 1 : 0
            }, deadline)
        defer { sqlite3_progress_handler(db.sqliteConnection, 0, nil, nil) }
        do {
            return try body()
        } catch let error as DatabaseError where error.resultCode == .SQLITE_INTERRUPT {
            throw EntityQuery.timedOut(timeout)
        }
    }
}
