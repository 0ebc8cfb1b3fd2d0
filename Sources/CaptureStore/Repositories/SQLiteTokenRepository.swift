import CaptureCore
import Foundation
import GRDB

/// Token hashes in SQLite. Lookups are by the unique `hash` index. Token checks are `SQLiteTokenChecks`'.
struct SQLiteTokenRepository: TokenRepository {
    let writer: MeteredDatabase

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
    private static let tokenSQL = "SELECT \(TokenRow.selection) FROM tokens WHERE hash = ?"

    /// By the unique index, through a cached prepared statement: generating and authorizing the SQL anew cost more
    /// than the lookup itself.
    static func token(hash: String, in db: Database) throws -> TokenRecord? {
        let statement = try db.cachedStatement(sql: tokenSQL)
        return try statement.first(arguments: [hash]) { TokenRow.token($0, at: 0) }
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
        SELECT \(TokenRow.selection), users.id, users.disabledAt
        FROM tokens LEFT JOIN users INDEXED BY users_standing ON users.id = tokens.userID WHERE tokens.hash = ?
        """

    /// The token with this key and whether its account is deactivated or gone.
    private static func tokenAndStanding(hash: String, in db: Database) throws -> (TokenRecord, disabled: Bool)? {
        try db.cachedStatement(sql: redemptionSQL).first(arguments: [hash]) { row in
            let after = TokenRow.selectionCount
            return (TokenRow.token(row, at: 0), (row[after] as String?) == nil || (row[after + 1] as Date?) != nil)
        }
    }

    /// Sets `usedAt` alone. Updating the whole record would rewrite the row's entry in every index on its columns
    /// (hash, user, client, chain, expiry): pages all over the file, each a page image in the WAL.
    private static func markUsed(_ token: TokenRecord, in db: Database) throws {
        try db.cachedStatement(sql: "UPDATE tokens SET usedAt = ? WHERE id = ?").execute(arguments: [
            StoredDate.text(token.usedAt), token.id,
        ])
    }

    func find(id: Int64) async throws -> TokenRecord? {
        try await writer.read { db in try TokenRow.fetchOne(db, key: id)?.value }
    }

    /// The SHA-256 starts a plain key and follows the mint time in a time-led one (`TokenRecord.fingerprint`).
    func find(fingerprint prefix: String) async throws -> [TokenRecord] {
        try await writer.read { db in
            let lengths = TokenRecord.keyLengths
            return try TokenRow.filter(
                sql: "(length(hash) = ? AND hash LIKE ?) OR (length(hash) = ? AND substr(hash, ?) LIKE ?)",
                arguments: [lengths.plain, prefix + "%", lengths.timeLed, lengths.timeLed - lengths.plain + 1, prefix + "%"]
            ).limit(10).values(db)
        }
    }

    func list(_ filter: TokenFilter) async throws -> [TokenRecord] {
        try await writer.read { db in
            var request = TokenRow.all()
            if let user = filter.userID { request = request.filter(Column("userID") == user) }
            if let client = filter.clientID { request = request.filter(Column("clientID") == client) }
            if let kind = filter.kind { request = request.filter(Column("kind") == kind.rawValue) }
            if let state = filter.state { request = request.filter(Self.predicate(state, at: filter.now)) }
            return try request.order(Column("id").desc).limit(filter.page.limit, offset: filter.page.offset).values(db)
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
        try await writer.write { db in try Self.revoke(TokenRow.filter(key: id), at: date, in: db) }
    }

    func revokeChain(_ chainID: String, of userID: String, at date: Date) async throws -> RevokedTokens {
        try await writer.write { db in try Self.revokeChain(chainID, of: userID, at: date, in: db) }
    }

    func revokeAll(userID: String, at date: Date) async throws -> RevokedTokens {
        try await writer.write { db in try Self.revoke(TokenRow.filter(Column("userID") == userID), at: date, in: db) }
    }

    func revokeAll(userID: String, exceptChain: String, at date: Date) async throws -> RevokedTokens {
        try await writer.write { db in
            try Self.revoke(
                TokenRow.filter(Column("userID") == userID && Self.chain != exceptChain)
                    .filter(Column("kind") != TokenKind.device.rawValue),
                at: date, in: db)
        }
    }

    func revokeAll(clientID: String, at date: Date) async throws -> RevokedTokens {
        try await writer.write { db in try Self.revoke(TokenRow.filter(Column("clientID") == clientID), at: date, in: db) }
    }

    func purge(expiredBefore cutoff: Date, accessIssuedBefore: Date) async throws -> Int {
        try await writer.write { db in
            try TokenRow.filter(Column("expiresAt") < cutoff)
                .filter(Column("kind") != TokenKind.access.rawValue || Column("issuedAt") < accessIssuedBefore)
                .deleteAll(db)
        }
    }

    private static func revokeChain(_ chainID: String, of userID: String, at date: Date, in db: Database) throws -> RevokedTokens
    {
        try revoke(TokenRow.filter(Column("userID") == userID && chain == chainID), at: date, in: db)
    }

    /// Revokes the tokens of `request` not revoked yet, counting them by kind first (same transaction).
    private static func revoke(
        _ request: QueryInterfaceRequest<TokenRow>, at date: Date, in db: Database
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
