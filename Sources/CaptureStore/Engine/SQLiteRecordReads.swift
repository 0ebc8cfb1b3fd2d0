import CaptureCore
import GRDB

/// The server API's record reads on SQLite (`RecordReads`): the user's columns decoded by position with its profile
/// kept as stored text, and whether it has linked accounts or passkeys (`TokenCheckSQL.linked`), whose lists are
/// then read in the same transaction; a record by selector, or a find whose filter matches at most one record
/// (`EntityFilter.matchesAtMostOne`), is one statement on the calling thread when it has none.
struct SQLiteRecordReads: RecordReads {
    let writer: MeteredDatabase

    static let columns = "\(UserRow.selection), \(TokenCheckSQL.linked)"

    func record(_ selector: EntitySelector) async throws -> StoredRecord? {
        let (condition, arguments): (String, StatementArguments)
        switch selector {
        case .uuid(let id): (condition, arguments) = ("users.id = ?", [id])
        case .number(let number): (condition, arguments) = ("users.number = ?", [number])
        case .key("email", let address): (condition, arguments) = ("users.email = ?", [address])
        case .key(let attribute, let text):
            (condition, arguments) = (
                "users.id = (SELECT userID FROM user_unique WHERE attribute = ? AND value = ?)", [attribute, text]
            )
        }
        let sql = "SELECT \(Self.columns) FROM users WHERE \(condition)"
        guard
            let (found, linked) = try await writer.statementRead(
                { db in try db.cachedStatement(sql: sql).first(arguments: arguments, Self.decode) }, operation: "record")
        else { return nil }
        guard linked else { return found }
        // Read again with its lists in one transaction, so the record and its lists come from one snapshot.
        return try await writer.pointRead(
            { db in
                try db.cachedStatement(sql: sql).first(arguments: arguments, Self.decode).map { try Self.listing($0.0, in: db) }
            }, operation: "record")
    }

    func records(_ query: EntityQuery) async throws -> [StoredRecord] {
        let (condition, filterArguments) = query.filter.map(SQLiteFilterSQL.condition) ?? ("1", StatementArguments())
        let sql = """
            SELECT \(Self.columns) FROM users WHERE \(condition)
            ORDER BY \(SQLiteFilterSQL.orderBy(query.order)) LIMIT ? OFFSET ?
            """
        let arguments = filterArguments + [query.maxResults, query.firstResult]
        if query.filter?.matchesAtMostOne == true {
            // An index lookup like `record(_:)`'s: one statement on the calling thread, its lists read again in one
            // transaction when it has some.
            let found = try await writer.statementRead(
                { db in try db.cachedStatement(sql: sql).all(arguments: arguments, Self.decode) }, operation: "records")
            guard found.contains(where: \.linked) else { return found.map(\.0) }
            return try await writer.pointRead(
                { db in
                    try db.cachedStatement(sql: sql).all(arguments: arguments, Self.decode).map { record, linked in
                        linked ? try Self.listing(record, in: db) : record
                    }
                }, operation: "records")
        }
        return try await writer.read { db in
            let found = try SQLiteUserRepository.withDeadline(query.timeout, in: db) {
                try db.cachedStatement(sql: sql).all(arguments: arguments, Self.decode)
            }
            return try found.map { record, linked in linked ? try Self.listing(record, in: db) : record }
        }
    }

    static func decode(_ row: SelectedColumns) -> (StoredRecord, linked: Bool) {
        let record = StoredRecord(
            user: UserRow.user(row, at: 0, parsingProfile: false), storedProfile: UserRow.storedProfile(row, at: 0),
            profiles: [], passkeys: [])
        return (record, row[UserRow.selectionCount] as Bool)
    }

    static func listing(_ record: StoredRecord, in db: Database) throws -> StoredRecord {
        var record = record
        record.profiles = try SQLiteIdentityRepository.list(userID: record.user.id, in: db)
        record.passkeys = try SQLitePasskeyRepository.list(userID: record.user.id, in: db)
        return record
    }
}
