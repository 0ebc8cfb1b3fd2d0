import CaptureCore
import Foundation
import PostgresNIO

/// Whole rows of the PostgreSQL database for `capturectl db copy`. Columns are the SQLite names in snake_case
/// (`passwordHash` → `password_hash`, `redirectURIs` → `redirect_uris`).
struct PostgresRowStore: RowStore {
    let store: PostgresStore

    static func column(_ name: String) -> String {
        var result = ""
        var previous: Character?
        for character in name {
            if character.isUppercase, let previous, previous.isLowercase || previous.isNumber { result.append("_") }
            result.append(character)
            previous = character
        }
        return result.lowercased()
    }

    func count(_ table: StoredTable) async throws -> Int {
        try await store.query(PostgresQuery(unsafeSQL: "SELECT count(*) AS n FROM \(table.name)"))
            .first.map { try Columns($0)("n", as: Int.self) } ?? 0
    }

    func rows(of table: StoredTable, offset: Int, limit: Int) async throws -> [[StoredValue]] {
        var binds = PostgresBindings()
        binds.append(limit)
        binds.append(offset)
        let sql = """
            SELECT \(table.columns.map { Self.column($0.name) }.joined(separator: ", ")) FROM \(table.name)
            ORDER BY \(table.orderedBy.map(Self.column).joined(separator: ", ")) LIMIT $1 OFFSET $2
            """
        return try await store.query(PostgresQuery(unsafeSQL: sql, binds: binds)).map { row in
            let cells = Columns(row)
            return try table.columns.map { column in try Self.value(cells, Self.column(column.name), column.kind) }
        }
    }

    func insert(_ rows: [[StoredValue]], into table: StoredTable) async throws {
        let names = table.columns.map { Self.column($0.name) }.joined(separator: ", ")
        let placeholders = table.columns.indices.map { "$\($0 + 1)" }.joined(separator: ", ")
        // Copied ids are kept: a token's id is how operators name it.
        let overriding = table.hasGeneratedID ? "OVERRIDING SYSTEM VALUE" : ""
        let sql = "INSERT INTO \(table.name) (\(names)) \(overriding) VALUES (\(placeholders))"
        try await store.transaction { connection in
            for row in rows {
                var binds = PostgresBindings()
                for value in row { Self.bind(value, into: &binds) }
                try await connection.rows(PostgresQuery(unsafeSQL: sql, binds: binds))
            }
        }
    }

    /// Identity columns continue after the largest copied id.
    func finishCopy(_ tables: [StoredTable]) async throws {
        for table in tables where table.hasGeneratedID {
            try await store.query(
                PostgresQuery(
                    unsafeSQL: """
                        SELECT setval(pg_get_serial_sequence('\(table.name)', 'id'), COALESCE(MAX(id), 0) + 1, false)
                        FROM \(table.name)
                        """))
        }
    }

    private static func value(_ cells: Columns, _ name: String, _ kind: StoredTable.Kind) throws -> StoredValue {
        switch kind {
        case .text: return try cells(name, as: String?.self).map(StoredValue.text) ?? .null
        case .integer: return try cells(name, as: Int64?.self).map(StoredValue.integer) ?? .null
        case .real: return try cells(name, as: Double?.self).map(StoredValue.real) ?? .null
        case .bool: return try cells(name, as: Bool?.self).map(StoredValue.bool) ?? .null
        case .date: return try cells(name, as: Date?.self).map(StoredValue.date) ?? .null
        case .texts: return try cells(name, as: [String]?.self).map(StoredValue.texts) ?? .null
        }
    }

    private static func bind(_ value: StoredValue, into binds: inout PostgresBindings) {
        switch value {
        case .null: binds.appendNull()
        case .text(let text): binds.append(text)
        case .integer(let number): binds.append(number)
        case .real(let number): binds.append(number)
        case .bool(let flag): binds.append(flag)
        case .date(let date): binds.append(date)
        case .texts(let list): binds.append(list)
        }
    }
}
