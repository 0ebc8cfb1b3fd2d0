import GRDB
import GRDBSQLite

extension Statement {
    /// The first row, decoded by `decode` while SQLite holds it (`SelectedColumns`); nil when there is none. The
    /// statement is stepped through SQLite's C API on GRDB's public handle (`sqliteStatement`), so no `Row` is made:
    /// a `Row` lower-cases and indexes every column's name each time it is made, which the hot reads, decoding by
    /// position, never use. The statement is reset before this returns, so its read never outlives the call.
    func first<T>(arguments: StatementArguments, _ decode: (SelectedColumns) throws -> T) throws -> T? {
        try setArguments(arguments)
        defer { sqlite3_reset(sqliteStatement) }
        switch sqlite3_step(sqliteStatement) {
        case SQLITE_ROW: return try decode(SelectedColumns(statement: sqliteStatement))
        case SQLITE_DONE: return nil
        case let code:
            throw DatabaseError(
                resultCode: ResultCode(rawValue: code),
                message: String(cString: sqlite3_errmsg(sqlite3_db_handle(sqliteStatement))), sql: sql,
                arguments: arguments)
        }
    }
}

extension Statement {
    /// Every row, each decoded as `first` decodes one.
    func all<T>(arguments: StatementArguments, _ decode: (SelectedColumns) throws -> T) throws -> [T] {
        try setArguments(arguments)
        defer { sqlite3_reset(sqliteStatement) }
        var rows: [T] = []
        while true {
            switch sqlite3_step(sqliteStatement) {
            case SQLITE_ROW: rows.append(try decode(SelectedColumns(statement: sqliteStatement)))
            case SQLITE_DONE: return rows
            case let code:
                throw DatabaseError(
                    resultCode: ResultCode(rawValue: code),
                    message: String(cString: sqlite3_errmsg(sqlite3_db_handle(sqliteStatement))), sql: sql,
                    arguments: arguments)
            }
        }
    }
}

/// The row a statement has stepped to, read by position straight from SQLite.
struct SelectedColumns {
    let statement: SQLiteStatement

    /// The value at `index`, nil when it is NULL or cannot be read as `Value`.
    subscript<Value: StatementColumnConvertible>(_ index: Int) -> Value? {
        sqlite3_column_type(statement, CInt(index)) == SQLITE_NULL
            ? nil : Value(sqliteStatement: statement, index: CInt(index))
    }

    /// The value at `index` of a column that is never NULL; a NULL there is a programming error, as in GRDB's `Row`.
    @_disfavoredOverload
    subscript<Value: StatementColumnConvertible>(_ index: Int) -> Value {
        guard let value: Value = self[index] else {
            fatalError("column \(index) of \(String(cString: sqlite3_sql(statement))) is not a \(Value.self)")
        }
        return value
    }
}
