import CaptureCache
import CaptureCore
import Foundation
import GRDB

/// Token hashes in SQLite. Lookups are by the unique `hash` index.
struct SQLiteTokenRepository: TokenRepository {
    let writer: MeteredDatabase
    /// Token checks kept in memory (a file database's; none in memory or in tests that pass none).
    var checks: TokenCheckCache? = nil

    private static let hash = Column("hash")
    private static let chain = Column("chainID")
    private static let revokedAt = Column("revokedAt")

    func insert(_ tokens: [TokenRecord]) async throws {
        try await writer.write { db in
            for token in tokens { try Self.insert(token, in: db) }
        }
    }

    func find(hash: String) async throws -> TokenRecord? {
        try await writer.statementRead { db in try Self.token(hash: hash, in: db) }
    }

    /// The hot statements' texts are made once (GRDB finds a cached statement by its text): interpolating them anew
    /// cost every lookup an allocation and a copy of a few hundred bytes.
    private static let tokenSQL = "SELECT \(TokenRecord.selection) FROM tokens WHERE hash = ?"

    /// By the unique index, through a cached prepared statement: generating and authorizing the SQL anew cost more
    /// than the lookup itself.
    static func token(hash: String, in db: Database) throws -> TokenRecord? {
        let statement = try db.cachedStatement(sql: tokenSQL)
        return try statement.first(arguments: [hash]) { TokenRecord(row: $0, selectionAt: 0) }
    }

    /// Through a cached statement naming every column, dates written by `StoredDate`: GRDB's record encoding and its
    /// date formatter cost more than the insert.
    static func insert(_ token: TokenRecord, in db: Database) throws {
        try db.cachedStatement(
            sql: """
                INSERT INTO tokens (kind, hash, userID, clientID, chainID, scope, authProvider, issuedAt, expiresAt,
                    usedAt, revokedAt, refreshSecret, redirectURI, codeChallenge, device)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """
        ).execute(arguments: [
            token.kind.rawValue, token.hash, token.userID, token.clientID, token.chainID, token.scope,
            token.authProvider, StoredDate.text(token.issuedAt), StoredDate.text(token.expiresAt),
            StoredDate.text(token.usedAt), StoredDate.text(token.revokedAt), token.refreshSecret,
            token.redirectURI, token.codeChallenge, token.device,
        ])
    }

    /// The presented token and its account's standing, in one statement: the account from the `users_standing`
    /// index alone, no page of the users table (whose rows hold the stored profiles). SQLite would pick the primary
    /// key's index and then read the row.
    static let redemptionSQL = """
        SELECT \(TokenRecord.selection), users.id, users.disabledAt
        FROM tokens LEFT JOIN users INDEXED BY users_standing ON users.id = tokens.userID WHERE tokens.hash = ?
        """

    /// The token with this key and whether its account is deactivated or gone.
    private static func tokenAndStanding(hash: String, in db: Database) throws -> (TokenRecord, disabled: Bool)? {
        try db.cachedStatement(sql: redemptionSQL).first(arguments: [hash]) { row in
            let after = TokenRecord.selectionCount
            return (TokenRecord(row: row, selectionAt: 0), (row[after] as String?) == nil || (row[after + 1] as Date?) != nil)
        }
    }

    /// Sets `usedAt` alone. Updating the whole record would rewrite the row's entry in every index on its columns
    /// (hash, user, client, chain, expiry): pages all over the file, each a page image in the WAL.
    private static func markUsed(_ token: TokenRecord, in db: Database) throws {
        try db.cachedStatement(sql: "UPDATE tokens SET usedAt = ? WHERE id = ?").execute(arguments: [
            StoredDate.text(token.usedAt), token.id,
        ])
    }

    func findWithUser(hash: String) async throws -> TokenLookup? {
        try await lookup(hash: hash, forEntity: false)?.check
    }

    func findWithRecord(hash: String) async throws -> RecordLookup? {
        try await lookup(hash: hash, forEntity: true)
    }

    /// The token, its user and (for `/entity`) the user's linked accounts and stored profile text. With the token's
    /// check kept in `checks`, only the user's row is read, by its row id; otherwise one statement reads the token, its
    /// user and the clients' version, and what it read is kept when it is a check `checks` holds. Either statement
    /// also says whether the user has linked accounts; only then are they listed (`read(forEntity:_:)`).
    private func lookup(hash: String, forEntity: Bool) async throws -> RecordLookup? {
        if let checks, let (kept, userRow) = checks.kept(key: hash),
            let found = try await read(
                forEntity: forEntity,
                { db, listing in
                    try Self.user(row: userRow, of: kept, forEntity: forEntity, listing: listing, in: db)
                })
        {
            writer.metrics.tokenCheck(kept: true)
            return found
        }
        if checks != nil { writer.metrics.tokenCheck(kept: false) }
        let generation = checks?.generation
        let read: @Sendable (Database, Bool) throws -> ((RecordLookup, userRow: Int64?), linked: Bool)? = { db, listing in
            let statement = try db.cachedStatement(sql: Self.withUserSQL)
            guard
                let (token, user, clientsVersion, userRow, linked) = try statement.first(
                    arguments: [hash],
                    { row in
                        let userAt = TokenRecord.selectionCount, after = userAt + User.selectionCount
                        let found = (row[userAt] as String?) != nil
                        let user = found ? User(row: row, selectionAt: userAt, parsingProfile: !forEntity) : nil
                        let text = found && forEntity ? User.storedProfile(row, selectionAt: userAt) : nil
                        return (
                            TokenRecord(row: row, selectionAt: 0), (user, text), row[after] as Int64? ?? 0,
                            row[after + 1] as Int64?, row[after + 2] as Bool
                        )
                    })
            else { return nil }
            let lookup = RecordLookup(
                check: TokenLookup(record: token, user: user.0, clientsVersion: clientsVersion), storedProfile: user.1,
                profiles: listing ? try SQLiteIdentityRepository.list(userID: token.userID, in: db) : [],
                passkeys: listing ? try SQLitePasskeyRepository.list(userID: token.userID, in: db) : [])
            return ((lookup, userRow), linked)
        }
        guard let (found, userRow) = try await self.read(forEntity: forEntity, read) else { return nil }
        if let checks, let generation, let user = found.check.user, let userRow {
            let account = AccountSummary(
                id: user.id, email: user.email, emailVerified: user.emailVerifiedAt != nil, disabledAt: user.disabledAt)
            checks.keep(
                AccountLookup(record: found.check.record, account: account, clientsVersion: found.check.clientsVersion),
                key: hash, userRow: userRow, generation: generation)
        }
        return found
    }

    /// Whether the selected user has linked accounts or passkeys (index lookups; false without a user).
    private static let linkedSQL = """
        (EXISTS (SELECT 1 FROM identities WHERE identities.userID = users.id)
            OR EXISTS (SELECT 1 FROM passkeys WHERE passkeys.userID = users.id))
        """

    /// A check not kept: the token, its user, the clients' version, the user's row id, whether it has linked accounts.
    private static let withUserSQL = """
        SELECT \(TokenRecord.selection), \(User.selection),
            (\(SQLiteClientRepository.versionQuery)), users.rowid, \(linkedSQL)
        FROM tokens LEFT JOIN users ON users.id = tokens.userID WHERE tokens.hash = ?
        """

    /// A kept check's user by row id, and whether it has linked accounts.
    private static let userByRowSQL = "SELECT \(User.selection), \(linkedSQL) FROM users WHERE rowid = ?"

    /// A kept check's lookup with its user's row, read by row id, and whether the user has linked accounts (listed
    /// when `listing`); nil when that row is gone (the id is compared as well: a row id can be given again once its
    /// row is deleted).
    private static func user(
        row userRow: Int64, of kept: AccountLookup, forEntity: Bool, listing: Bool, in db: Database
    )
        throws -> (RecordLookup, linked: Bool)?
    {
        let statement = try db.cachedStatement(sql: userByRowSQL)
        guard
            let (user, text, linked) = try statement.first(
                arguments: [userRow],
                { row in
                    (
                        User(row: row, selectionAt: 0, parsingProfile: !forEntity),
                        forEntity ? User.storedProfile(row, selectionAt: 0) : nil, row[User.selectionCount] as Bool
                    )
                }),
            user.id == kept.record.userID
        else { return nil }
        let lookup = RecordLookup(
            check: TokenLookup(record: kept.record, user: user, clientsVersion: kept.clientsVersion), storedProfile: text,
            profiles: listing ? try SQLiteIdentityRepository.list(userID: user.id, in: db) : [],
            passkeys: listing ? try SQLitePasskeyRepository.list(userID: user.id, in: db) : [])
        return (lookup, linked)
    }

    /// `body` as the one statement it is (`statementRead`, no transaction), unless the linked accounts and passkeys are
    /// wanted (for `/entity`) and the user has some: then `body` again, listing them, in one read transaction (`pointRead`), so
    /// the record and its list come from one snapshot. Most users have none, and BEGIN and COMMIT cost what the read
    /// costs.
    private func read<T: Sendable>(
        forEntity: Bool, _ body: @escaping @Sendable (Database, _ listing: Bool) throws -> (T, linked: Bool)?,
        operation: String = #function
    ) async throws -> T? {
        guard let (found, linked) = try await writer.statementRead({ db in try body(db, false) }, operation: operation)
        else { return nil }
        guard forEntity, linked else { return found }
        return try await writer.pointRead({ db in try body(db, true) }, operation: operation)?.0
    }

    /// The token, who its account is (from `users_standing` alone, as in `redemptionSQL`, with its row id for
    /// `ChangeStamps`) and the clients' version.
    static let findWithAccountSQL = """
        SELECT \(TokenRecord.selection), users.id, users.email, users.disabledAt,
            (\(SQLiteClientRepository.versionQuery)), users.rowid, users.emailVerifiedAt IS NOT NULL
        FROM tokens LEFT JOIN users INDEXED BY users_standing ON users.id = tokens.userID WHERE tokens.hash = ?
        """

    /// From `checks` while nothing it depends on has changed, else one statement on the calling thread
    /// (`findWithAccountSQL`), kept in `checks` when it is one they hold.
    func findWithAccount(hash: String) async throws -> AccountLookup? {
        if let checks {
            let kept = checks.lookup(key: hash)
            writer.metrics.tokenCheck(kept: kept != nil)
            if let kept { return kept }
        }
        let generation = checks?.generation
        let found = try await writer.statementRead { db in
            let statement = try db.cachedStatement(sql: Self.findWithAccountSQL)
            return try statement.first(arguments: [hash]) { row -> (AccountLookup, userRow: Int64?) in
                let after = TokenRecord.selectionCount
                let account: AccountSummary? = (row[after] as String?).map { id in
                    AccountSummary(id: id, email: row[after + 1], emailVerified: row[after + 5], disabledAt: row[after + 2])
                }
                let lookup = AccountLookup(
                    record: TokenRecord(row: row, selectionAt: 0), account: account, clientsVersion: row[after + 3] ?? 0)
                return (lookup, row[after + 4])
            }
        }
        if let checks, let generation, let (lookup, userRow) = found, let userRow {
            checks.keep(lookup, key: hash, userRow: userRow, generation: generation)
        }
        return found?.0
    }

    func find(id: Int64) async throws -> TokenRecord? {
        try await writer.read { db in try TokenRecord.fetchOne(db, key: id) }
    }

    /// The SHA-256 starts a plain key and follows the mint time in a time-led one (`TokenRecord.fingerprint`).
    func find(fingerprint prefix: String) async throws -> [TokenRecord] {
        try await writer.read { db in
            let lengths = TokenRecord.keyLengths
            return try TokenRecord.filter(
                sql: "(length(hash) = ? AND hash LIKE ?) OR (length(hash) = ? AND substr(hash, ?) LIKE ?)",
                arguments: [lengths.plain, prefix + "%", lengths.timeLed, lengths.timeLed - lengths.plain + 1, prefix + "%"]
            ).limit(10).fetchAll(db)
        }
    }

    func list(_ filter: TokenFilter) async throws -> [TokenRecord] {
        try await writer.read { db in
            var request = TokenRecord.all()
            if let user = filter.userID { request = request.filter(Column("userID") == user) }
            if let client = filter.clientID { request = request.filter(Column("clientID") == client) }
            if let kind = filter.kind { request = request.filter(Column("kind") == kind.rawValue) }
            if let state = filter.state { request = request.filter(Self.predicate(state, at: filter.now)) }
            return try request.order(Column("id").desc).limit(filter.page.limit, offset: filter.page.offset).fetchAll(db)
        }
    }

    /// `TokenState.stored` as SQL.
    private static func predicate(_ state: TokenState, at now: Date) -> SQLExpression {
        let stored = state.stored
        var conditions: [SQLExpression] = []
        if let revoked = stored.revoked { conditions.append(revoked ? revokedAt != nil : revokedAt == nil) }
        if let used = stored.used { conditions.append(used ? Column("usedAt") != nil : Column("usedAt") == nil) }
        if let expired = stored.expired { conditions.append(expired ? Column("expiresAt") <= now : Column("expiresAt") > now) }
        return conditions.joined(operator: .and)
    }

    func redeem(
        hash: String, now: Date, _ decide: @escaping @Sendable (TokenRecord?, Bool) -> RedemptionStep
    ) async throws -> Redemption {
        // Many redemptions a second, each durable: they share transactions and fsyncs (GroupCommit). The write
        // transaction is the lock: no other redemption reads the token until this one commits.
        try await writer.groupWrite { db in
            let found = try Self.tokenAndStanding(hash: hash, in: db)
            let token = found?.0
            switch (decide(token, found?.disabled ?? false), token) {
            case (.redeem(let replacements), var old?):
                old.usedAt = now
                try Self.markUsed(old, in: db)
                for next in replacements { try Self.insert(next, in: db) }
                return .redeemed(old)
            case (.revokeChain, let old?):
                return .reused(try Self.revokeChain(old.chainID, of: old.userID, at: now, in: db))
            case (.revokeChainOfDisabledAccount, let old?):
                return .accountDisabled(try Self.revokeChain(old.chainID, of: old.userID, at: now, in: db))
            default:
                return .notUsable
            }
        }
    }

    func revoke(id: Int64, at date: Date) async throws -> RevokedTokens {
        try await writer.write { db in try Self.revoke(TokenRecord.filter(key: id), at: date, in: db) }
    }

    func revokeChain(_ chainID: String, of userID: String, at date: Date) async throws -> RevokedTokens {
        try await writer.write { db in try Self.revokeChain(chainID, of: userID, at: date, in: db) }
    }

    func revokeAll(userID: String, at date: Date) async throws -> RevokedTokens {
        try await writer.write { db in try Self.revoke(TokenRecord.filter(Column("userID") == userID), at: date, in: db) }
    }

    func revokeAll(userID: String, exceptChain: String, at date: Date) async throws -> RevokedTokens {
        try await writer.write { db in
            try Self.revoke(
                TokenRecord.filter(Column("userID") == userID && Self.chain != exceptChain)
                    .filter(Column("kind") != TokenKind.device.rawValue),
                at: date, in: db)
        }
    }

    func revokeAll(clientID: String, at date: Date) async throws -> RevokedTokens {
        try await writer.write { db in try Self.revoke(TokenRecord.filter(Column("clientID") == clientID), at: date, in: db) }
    }

    func purge(expiredBefore cutoff: Date, accessIssuedBefore: Date) async throws -> Int {
        try await writer.write { db in
            try TokenRecord.filter(Column("expiresAt") < cutoff)
                .filter(Column("kind") != TokenKind.access.rawValue || Column("issuedAt") < accessIssuedBefore)
                .deleteAll(db)
        }
    }

    private static func revokeChain(_ chainID: String, of userID: String, at date: Date, in db: Database) throws -> RevokedTokens
    {
        try revoke(TokenRecord.filter(Column("userID") == userID && chain == chainID), at: date, in: db)
    }

    /// Revokes the tokens of `request` not revoked yet, counting them by kind first (same transaction).
    private static func revoke(
        _ request: QueryInterfaceRequest<TokenRecord>, at date: Date, in db: Database
    ) throws -> RevokedTokens {
        let live = request.filter(revokedAt == nil)
        var byKind: [TokenKind: Int] = [:]
        for row in try live.select(Column("kind"), count(Column("id"))).group(Column("kind")).asRequest(of: Row.self)
            .fetchAll(db)
        {
            if let kind = TokenKind(rawValue: row[0]) { byKind[kind] = row[1] }
        }
        try live.updateAll(db, revokedAt.set(to: date))
        return RevokedTokens(byKind)
    }
}
