import GRDB

extension Statement {
    /// The first row, decoded by `decode` while the statement still holds it (no copy of the row is made); nil when
    /// there is none. The cursor resets the statement when it goes, so the read transaction never outlives the call.
    func first<T>(arguments: StatementArguments, _ decode: (Row) throws -> T) throws -> T? {
        let cursor = try Row.fetchCursor(self, arguments: arguments)
        return try withExtendedLifetime(cursor) { try cursor.next().map(decode) }
    }
}
