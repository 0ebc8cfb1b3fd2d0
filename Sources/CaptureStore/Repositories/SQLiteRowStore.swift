import CaptureCore
import Foundation
import GRDB

/// Whole rows of the SQLite file for `capturectl db copy`. Dates are GRDB's text, lists JSON text, booleans 0/1.
public struct SQLiteRowStore: RowStore {
    let writer: any DatabaseWriter

    public init(_ writer: any DatabaseWriter) {
        self.writer = writer
    }

    public func count(_ table: StoredTable) async throws -> Int {
        try await writer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table.name)") ?? 0 }
    }

    public func rows(of table: StoredTable, offset: Int, limit: Int) async throws -> [[StoredValue]] {
        let sql = """
            SELECT \(table.columns.map(\.name).joined(separator: ", ")) FROM \(table.name)
            ORDER BY \(table.orderedBy.joined(separator: ", ")) LIMIT ? OFFSET ?
            """
        return try await writer.read { db in
            try Row.fetchAll(db, sql: sql, arguments: [limit, offset]).map { row in
                try table.columns.indices.map { try Self.value(row[$0] as DatabaseValue, table.columns[$0].kind) }
            }
        }
    }

    public func insert(_ rows: [[StoredValue]], into table: StoredTable) async throws {
        let sql = """
            INSERT INTO \(table.name) (\(table.columns.map(\.name).joined(separator: ", ")))
            VALUES (\(table.columns.map { _ in "?" }.joined(separator: ", ")))
            """
        try await writer.write { db in
            let statement = try db.makeStatement(sql: sql)
            for row in rows { try statement.execute(arguments: StatementArguments(row.map(Self.databaseValue))) }
        }
    }

    /// SQLite gives the next rowid after the largest: nothing to do.
    public func finishCopy(_ tables: [StoredTable]) async throws {}

    static func value(_ stored: DatabaseValue, _ kind: StoredTable.Kind) throws -> StoredValue {
        if stored.isNull { return .null }
        switch kind {
        case .text: return String.fromDatabaseValue(stored).map(StoredValue.text) ?? .null
        case .integer: return Int64.fromDatabaseValue(stored).map(StoredValue.integer) ?? .null
        case .real: return Double.fromDatabaseValue(stored).map(StoredValue.real) ?? .null
        case .bool: return Bool.fromDatabaseValue(stored).map(StoredValue.bool) ?? .null
        case .date: return Date.fromDatabaseValue(stored).map(StoredValue.date) ?? .null
        case .texts:
            guard let text = String.fromDatabaseValue(stored),
                let list = try? JSONDecoder().decode([String].self, from: Data(text.utf8))
            else { return .null }
            return .texts(list)
        }
    }

    static func databaseValue(_ value: StoredValue) -> DatabaseValue {
        switch value {
        case .null: return .null
        case .text(let text): return text.databaseValue
        case .integer(let number): return number.databaseValue
        case .real(let number): return number.databaseValue
        case .bool(let flag): return flag.databaseValue
        case .date(let date): return date.databaseValue
        case .texts(let list):
            return String(decoding: (try? JSONEncoder().encode(list)) ?? Data("[]".utf8), as: UTF8.self).databaseValue
        }
    }
}
