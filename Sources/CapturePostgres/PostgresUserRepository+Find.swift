import CaptureCore
import PostgresNIO

/// `entity.find` and `entity.count`: the filter compiled to SQL (`PostgresFilterSQL`) and run in a transaction whose
/// `statement_timeout` is the call's timeout (the server then cancels the statement: SQLSTATE 57014).
extension PostgresUserRepository {
    func find(_ query: EntityQuery) async throws -> [User] {
        var bindings = PostgresBindings()
        let condition = query.filter.map { PostgresFilterSQL.condition($0, bindings: &bindings) } ?? "true"
        bindings.append(Int64(query.maxResults))
        let limit = bindings.count
        bindings.append(Int64(query.firstResult))
        let sql = """
            SELECT \(Self.columns()) FROM users WHERE \(condition)
            ORDER BY \(PostgresFilterSQL.orderBy(query.order)) LIMIT $\(limit) OFFSET $\(limit + 1)
            """
        let rows = try await bounded(by: query.timeout, PostgresQuery(unsafeSQL: sql, binds: bindings))
        return try rows.map { try Self.record($0) }
    }

    func count(_ filter: EntityFilter?, timeout: Duration) async throws -> Int {
        var bindings = PostgresBindings()
        let condition = filter.map { PostgresFilterSQL.condition($0, bindings: &bindings) } ?? "true"
        let rows = try await bounded(
            by: timeout, PostgresQuery(unsafeSQL: "SELECT count(*) AS n FROM users WHERE \(condition)", binds: bindings))
        return Int(try rows.first.map { try Columns($0)("n", as: Int64.self) } ?? 0)
    }

    /// `query`'s rows, the statement cancelled by the server after `timeout`.
    private func bounded(by timeout: Duration, _ query: PostgresQuery) async throws -> [PostgresRow] {
        let (seconds, attoseconds) = timeout.components
        let milliseconds = max(1, seconds * 1000 + attoseconds / 1_000_000_000_000_000)
        do {
            return try await store.transaction(mayTellChanges: { _ in false }) { connection in
                try await connection.rows("SELECT set_config('statement_timeout', \(String(milliseconds)), true)")
                return try await connection.rows(query)
            }
        } catch let error as PSQLError where error.code == .server && error.serverInfo?[.sqlState] == "57014" {
            throw EntityQuery.timedOut(timeout)
        }
    }

    /// One index per unique or `indexed` profile attribute, on `PostgresFilterSQL.indexKey(of:)`; the filter indexes
    /// of attributes no longer marked are dropped. Under an advisory lock, so instances starting together take turns.
    func prepareFilterIndexes(for schema: EntitySchema) async throws {
        var wanted: [String: String] = [:]
        for field in schema.indexedFilterFields {
            let key = PostgresFilterSQL.indexKey(of: field)
            wanted[FilterIndexName.name(forExpression: key)] = key
        }
        let indexes = wanted
        try await store.transaction(mayTellChanges: { _ in false }) { connection in
            try await connection.lock("users_profile_indexes")
            var existing: Set<String> = []
            let pattern = FilterIndexName.prefix + "%"
            for row in try await connection.rows(
                """
                SELECT indexname FROM pg_indexes
                WHERE schemaname = current_schema() AND tablename = 'users' AND indexname LIKE \(pattern)
                """)
            {
                existing.insert(try Columns(row)("indexname"))
            }
            // Names are `FilterIndexName`'s (a prefix and hex digits), and expressions `PostgresFilterSQL`'s.
            for name in existing where indexes[name] == nil {
                try await connection.rows(PostgresQuery(unsafeSQL: "DROP INDEX \(name)"))
            }
            for (name, key) in indexes.sorted(by: { $0.key < $1.key }) where !existing.contains(name) {
                try await connection.rows(PostgresQuery(unsafeSQL: "CREATE INDEX IF NOT EXISTS \(name) ON users (\(key))"))
            }
        }
    }
}
