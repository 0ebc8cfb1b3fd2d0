import CaptureCache
import CaptureCore
import GRDB

/// Token checks on SQLite (`TokenChecks`), and what `CachedTokenChecks` reads through them (`TokenCheckReads`): one
/// statement on the calling thread (`MeteredDatabase.statementRead`), its SQL in `TokenCheckSQL`, its columns decoded by
/// position in `TokenCheckRow`; for `/entity`, the linked accounts and passkeys (`LinkedRecord`) only when the user
/// has some. Caching and its counting are `CachedTokenChecks`' (CaptureCache).
struct SQLiteTokenChecks: TokenChecks, TokenCheckReads {
    let writer: MeteredDatabase

    func check(_ key: String, _ depth: TokenCheck.Depth) async throws -> TokenCheck? {
        try await read(key, depth)?.check
    }

    func read(_ key: String, _ depth: TokenCheck.Depth) async throws -> (check: TokenCheck, userRow: Int64?)? {
        switch depth {
        case .account:
            return try await writer.statementRead(
                { db in try db.cachedStatement(sql: TokenCheckSQL.account).first(arguments: [key], TokenCheckRow.account) },
                operation: "check(account)")
        case .user, .record:
            return try await snapshot(depth, operation: depth == .user ? "check(user)" : "check(record)") { db, listing in
                guard
                    let found = try db.cachedStatement(sql: TokenCheckSQL.withUser).first(
                        arguments: [key], { row in TokenCheckRow.withUser(row, depth: depth) })
                else { return nil }
                let check = try LinkedRecord.add(to: found.check, listing: listing, in: db)
                return ((check, found.userRow), found.linked)
            }
        }
    }

    /// The kept check's user by row id (compared by id as well: a row id can be given again once its row is deleted).
    func complete(_ kept: TokenCheck, userRow: Int64, _ depth: TokenCheck.Depth) async throws -> TokenCheck? {
        try await snapshot(depth, operation: depth == .user ? "kept(user)" : "kept(record)") { db, listing in
            guard
                let found = try db.cachedStatement(sql: TokenCheckSQL.userByRow).first(
                    arguments: [userRow],
                    { row in
                        TokenCheckRow.user(row, of: kept, depth: depth)
                    }), found.check.user?.id == kept.record.userID
            else { return nil }
            return (try LinkedRecord.add(to: found.check, listing: listing, in: db), found.linked)
        }
    }

    /// `body` as the one statement it is (`statementRead`, no transaction), unless the record is wanted (`.record`)
    /// and the user has linked accounts or passkeys: then `body` again, listing them, in one read transaction
    /// (`pointRead`), so the record and its lists come from one snapshot. Most users have none, and BEGIN and COMMIT
    /// cost what the read costs.
    private func snapshot<T: Sendable>(
        _ depth: TokenCheck.Depth, operation: String,
        _ body: @escaping @Sendable (Database, _ listing: Bool) throws -> (T, linked: Bool)?
    ) async throws -> T? {
        guard let (found, linked) = try await writer.statementRead({ db in try body(db, false) }, operation: operation)
        else { return nil }
        guard depth == .record, linked else { return found }
        return try await writer.pointRead({ db in try body(db, true) }, operation: operation)?.0
    }
}

/// The token checks' statements, made once (GRDB finds a cached statement by its text).
enum TokenCheckSQL {
    /// The token, who its account is (from `users_standing` alone, as in `SQLiteTokenRepository.redemptionSQL`, with
    /// its row id for `ChangeStamps`) and the clients' version.
    static let account = """
        SELECT \(TokenRow.selection), users.id, users.email, users.disabledAt,
            (\(SQLiteClientRepository.versionQuery)), users.rowid, users.emailVerifiedAt IS NOT NULL
        FROM tokens LEFT JOIN users INDEXED BY users_standing ON users.id = tokens.userID WHERE tokens.hash = ?
        """

    /// Whether the selected user has linked accounts or passkeys (index lookups; false without a user).
    static let linked = """
        (EXISTS (SELECT 1 FROM identities WHERE identities.userID = users.id)
            OR EXISTS (SELECT 1 FROM passkeys WHERE passkeys.userID = users.id))
        """

    /// A check not kept: the token, its user, the clients' version, the user's row id, whether it has linked accounts.
    static let withUser = """
        SELECT \(TokenRow.selection), \(UserRow.selection),
            (\(SQLiteClientRepository.versionQuery)), users.rowid, \(linked)
        FROM tokens LEFT JOIN users ON users.id = tokens.userID WHERE tokens.hash = ?
        """

    /// A kept check's user by row id, and whether it has linked accounts.
    static let userByRow = "SELECT \(UserRow.selection), \(linked) FROM users WHERE rowid = ?"
}

/// The token checks' rows, decoded by position (`TokenRow.selection`, `UserRow.selection`).
enum TokenCheckRow {
    /// `TokenCheckSQL.account`'s row.
    static func account(_ row: SelectedColumns) -> (check: TokenCheck, userRow: Int64?) {
        let after = TokenRow.selectionCount
        let account: AccountSummary? = (row[after] as String?).map { id in
            AccountSummary(id: id, email: row[after + 1], emailVerified: row[after + 5], disabledAt: row[after + 2])
        }
        let check = TokenCheck(
            record: TokenRow.token(row, at: 0), account: account, clientsVersion: row[after + 3] ?? 0)
        return (check, row[after + 4])
    }

    /// `TokenCheckSQL.withUser`'s row: for `.record` the user's profile is left as its stored text.
    static func withUser(_ row: SelectedColumns, depth: TokenCheck.Depth) -> (check: TokenCheck, userRow: Int64?, linked: Bool) {
        let userAt = TokenRow.selectionCount, after = userAt + UserRow.selectionCount
        let found = (row[userAt] as String?) != nil
        let entity = depth == .record
        let check = TokenCheck(
            record: TokenRow.token(row, at: 0),
            user: found ? UserRow.user(row, at: userAt, parsingProfile: !entity) : nil,
            clientsVersion: row[after] as Int64? ?? 0,
            storedProfile: found && entity ? UserRow.storedProfile(row, at: userAt) : nil)
        return (check, row[after + 1] as Int64?, row[after + 2] as Bool)
    }

    /// `TokenCheckSQL.userByRow`'s row, with the kept check's token and clients' version.
    static func user(_ row: SelectedColumns, of kept: TokenCheck, depth: TokenCheck.Depth) -> (check: TokenCheck, linked: Bool) {
        let entity = depth == .record
        let check = TokenCheck(
            record: kept.record, user: UserRow.user(row, at: 0, parsingProfile: !entity),
            clientsVersion: kept.clientsVersion, storedProfile: entity ? UserRow.storedProfile(row, at: 0) : nil)
        return (check, row[UserRow.selectionCount] as Bool)
    }
}

/// What `/entity` reads of other aggregates: the user's linked accounts and passkeys, through their repositories'
/// reads, in the check's transaction.
enum LinkedRecord {
    /// `check` with its user's linked accounts and passkeys when `listing` (else as it is).
    static func add(to check: TokenCheck, listing: Bool, in db: Database) throws -> TokenCheck {
        guard listing, let user = check.user else { return check }
        return TokenCheck(
            record: check.record, user: user, clientsVersion: check.clientsVersion, storedProfile: check.storedProfile,
            profiles: try SQLiteIdentityRepository.list(userID: user.id, in: db),
            passkeys: try SQLitePasskeyRepository.list(userID: user.id, in: db))
    }
}
