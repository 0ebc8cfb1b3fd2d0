import GRDB
import GRDBSQLite

/// The row a statement has stepped to, read by position straight from SQLite. The hot paths' reads decode through
/// this rather than GRDB's `Row`: a row cursor builds a lower-cased index of every column name each time it is made,
/// more work than the few columns read by position need (about 2 µs of a token check's read).
struct SelectedColumns {
    let statement: SQLiteStatement

    /// The value at `index`, nil when it is NULL or cannot be read as `Value`.
    subscript<Value: StatementColumnConvertible>(_ index: Int) -> Value? {
        sqlite3_column_type(statement, CInt(index)) == SQLITE_NULL ? nil : Value(sqliteStatement: statement, index: CInt(index))
    }

    /// The value at `index` of a column that is never NULL; a failure to read it is a programming error, as in
    /// GRDB's `Row`. (Disfavoured: where an optional is wanted, the subscript above answers, NULL included.)
    @_disfavoredOverload
    subscript<Value: StatementColumnConvertible>(_ index: Int) -> Value {
        guard let value: Value = self[index] else {
            fatalError("column \(index) of \(String(cString: sqlite3_sql(statement))) is not a \(Value.self)")
        }
        return value
    }
}

extension Statement {
    /// The first row, decoded where SQLite holds it (`SelectedColumns`); nil when there is none. The statement is
    /// reset before this returns, so its read transaction never outlives the call.
    func first<T>(arguments: StatementArguments, _ decode: (SelectedColumns) throws -> T) throws -> T? {
        try withoutActuallyEscaping(decode) { decode in
            let cursor = try FirstRowCursor(statement: self, arguments: arguments, decode: decode)
            return try withExtendedLifetime(cursor) { try cursor.next() }
        }
    }
}

/// A GRDB cursor whose element is decoded from `SelectedColumns`: GRDB's own stepping (its statement bookkeeping and
/// errors) without a `Row`.
private final class FirstRowCursor<Element>: DatabaseCursor {
    let _statement: Statement
    var _isDone = false
    private let decode: (SelectedColumns) throws -> Element

    init(statement: Statement, arguments: StatementArguments, decode: @escaping (SelectedColumns) throws -> Element) throws {
        _statement = statement
        self.decode = decode
        try statement.setArguments(arguments)
    }

    deinit {
        // As GRDB's cursors do: a statement left stepped would hold its read transaction (and the WAL) open.
        sqlite3_reset(_statement.sqliteStatement)
    }

    func _element(sqliteStatement: SQLiteStatement) throws -> Element {
        try decode(SelectedColumns(statement: sqliteStatement))
    }
}
