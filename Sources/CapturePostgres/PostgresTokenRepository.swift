import CaptureCore
import Foundation
import PostgresNIO

/// Token hashes in PostgreSQL. A redemption reads its token `FOR UPDATE`: of two instances redeeming one token at
/// once, the second waits for the first's commit, then sees it used (and `RedemptionRule` revokes the chain).
struct PostgresTokenRepository: TokenRepository {
    let store: PostgresStore
    let redemptions: RedemptionGroups

    init(store: PostgresStore) {
        self.store = store
        redemptions = RedemptionGroups(store: store)
    }

    static let columns = """
        tokens.id, kind, hash, user_id, client_id, chain_id, scope, auth_provider, issued_at, expires_at, used_at, \
        revoked_at, refresh_secret, redirect_uri, code_challenge, device
        """

    func insert(_ tokens: [TokenRecord]) async throws {
        try await store.transaction { connection in
            for token in tokens { try await Self.insert(token, on: connection) }
        }
    }

    static func insert(_ token: TokenRecord, on connection: PostgresConnection) async throws {
        try await connection.rows(
            """
            INSERT INTO tokens (kind, hash, user_id, client_id, chain_id, scope, auth_provider, issued_at, expires_at,
                used_at, revoked_at, refresh_secret, redirect_uri, code_challenge, device)
            VALUES (\(token.kind.rawValue), \(token.hash), \(token.userID), \(token.clientID), \(token.chainID),
                \(token.scope), \(token.authProvider), \(token.issuedAt), \(token.expiresAt), \(token.usedAt),
                \(token.revokedAt), \(token.refreshSecret), \(token.redirectURI), \(token.codeChallenge),
                \(token.device))
            """)
    }

    func find(hash: String) async throws -> TokenRecord? {
        try await store.read(prepared: TokenStatement(key: hash)).first.map(Self.record)
    }

    func find(id: Int64) async throws -> TokenRecord? {
        try await store.query("SELECT \(unescaped: Self.columns) FROM tokens WHERE id = \(id)").first.map(Self.record)
    }

    /// The SHA-256 starts a plain key and follows the mint time in a time-led one (`TokenRecord.fingerprint`).
    func find(fingerprint prefix: String) async throws -> [TokenRecord] {
        let lengths = TokenRecord.keyLengths, pattern = prefix + "%"
        return try await store.query(
            """
            SELECT \(unescaped: Self.columns) FROM tokens
            WHERE (length(hash) = \(unescaped: String(lengths.plain)) AND hash LIKE \(pattern))
                OR (length(hash) = \(unescaped: String(lengths.timeLed))
                    AND substr(hash, \(unescaped: String(lengths.timeLed - lengths.plain + 1))) LIKE \(pattern))
            ORDER BY id LIMIT 10
            """
        ).map(Self.record)
    }

    func list(_ filter: TokenFilter) async throws -> [TokenRecord] {
        var conditions: [String] = []
        var binds = PostgresBindings()
        func bind(_ value: some PostgresDynamicTypeEncodable) -> String {
            binds.append(value)
            return "$\(binds.count)"
        }
        if let user = filter.userID { conditions.append("user_id = \(bind(user))") }
        if let client = filter.clientID { conditions.append("client_id = \(bind(client))") }
        if let kind = filter.kind { conditions.append("kind = \(bind(kind.rawValue))") }
        if let state = filter.state {
            // `TokenState.stored` as SQL.
            let stored = state.stored
            if let revoked = stored.revoked { conditions.append(revoked ? "revoked_at IS NOT NULL" : "revoked_at IS NULL") }
            if let used = stored.used { conditions.append(used ? "used_at IS NOT NULL" : "used_at IS NULL") }
            if let expired = stored.expired {
                conditions.append("expires_at \(expired ? "<=" : ">") \(bind(filter.now))")
            }
        }
        let whereClause = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        let sql = """
            SELECT \(Self.columns) FROM tokens \(whereClause) ORDER BY id DESC \
            LIMIT \(bind(filter.page.limit)) OFFSET \(bind(filter.page.offset))
            """
        return try await store.query(PostgresQuery(unsafeSQL: sql, binds: binds)).map(Self.record)
    }

    /// Redemptions arriving together share a transaction (`RedemptionGroups`). A plain redemption marks a refresh
    /// token or a code used, which no kept token check depends on, so `capture.changes` is read only for a group that
    /// revoked tokens.
    func redeem(
        hash: String, now: Date, _ decide: @escaping @Sendable (TokenRecord?, Bool) -> RedemptionStep
    ) async throws -> Redemption {
        try await redemptions.redeem(hash: hash, now: now, decide)
    }

    func revoke(id: Int64, at date: Date) async throws -> RevokedTokens {
        try await store.transaction { connection in try await Self.revoke(where: "id = $2", id, at: date, on: connection) }
    }

    func revokeChain(_ chainID: String, of userID: String, at date: Date) async throws -> RevokedTokens {
        try await store.transaction { connection in
            try await Self.revokeChain(chainID, of: userID, at: date, on: connection)
        }
    }

    func revokeAll(userID: String, at date: Date) async throws -> RevokedTokens {
        try await store.transaction { connection in
            try await Self.revoke(where: "user_id = $2", userID, at: date, on: connection)
        }
    }

    func revokeAll(userID: String, exceptChain: String, at date: Date) async throws -> RevokedTokens {
        try await store.transaction { connection in
            try await Self.revoke(
                where: "user_id = $2 AND chain_id <> $3 AND kind <> $4", userID, exceptChain, TokenKind.device.rawValue,
                at: date, on: connection)
        }
    }

    func revokeAll(clientID: String, at date: Date) async throws -> RevokedTokens {
        try await store.transaction { connection in
            try await Self.revoke(where: "client_id = $2", clientID, at: date, on: connection)
        }
    }

    func purge(expiredBefore cutoff: Date, accessIssuedBefore: Date) async throws -> Int {
        try await store.query(
            """
            WITH gone AS (DELETE FROM tokens WHERE expires_at < \(cutoff)
                AND (kind <> \(TokenKind.access.rawValue) OR issued_at < \(accessIssuedBefore)) RETURNING 1)
            SELECT count(*) AS n FROM gone
            """
        ).first.map { try Columns($0)("n", as: Int.self) } ?? 0
    }

    /// Revokes the live tokens matching `condition` (its parameters from `$2`; `$1` is the time) and counts them by
    /// kind, in one statement.
    static func revokeChain(
        _ chainID: String, of userID: String, at date: Date, on connection: PostgresConnection
    )
        async throws -> RevokedTokens
    {
        try await revoke(where: "user_id = $2 AND chain_id = $3", userID, chainID, at: date, on: connection)
    }

    private static func revoke(
        where condition: String, _ values: any PostgresDynamicTypeEncodable..., at date: Date,
        on connection: PostgresConnection
    ) async throws -> RevokedTokens {
        var binds = PostgresBindings()
        binds.append(date)
        for value in values { binds.append(value) }
        let sql = """
            WITH revoked AS (UPDATE tokens SET revoked_at = $1 WHERE revoked_at IS NULL AND \(condition) RETURNING kind)
            SELECT kind, count(*) AS n FROM revoked GROUP BY kind
            """
        var byKind: [TokenKind: Int] = [:]
        for row in try await connection.rows(PostgresQuery(unsafeSQL: sql, binds: binds)) {
            let columns = Columns(row)
            if let kind = TokenKind(rawValue: try columns("kind")) { byKind[kind] = try columns("n") }
        }
        return RevokedTokens(byKind)
    }

    static func record(_ row: PostgresRow) throws -> TokenRecord {
        let c = Columns(row)
        var token = TokenRecord(
            kind: TokenKind(rawValue: try c("kind")) ?? .device, hash: try c("hash"), userID: try c("user_id"),
            clientID: try c("client_id"), chainID: try c("chain_id"), scope: try c("scope"),
            authProvider: try c("auth_provider"), issuedAt: try c("issued_at"), expiresAt: try c("expires_at"),
            refreshSecret: try c("refresh_secret"))
        token.id = try c("id")
        token.usedAt = try c("used_at")
        token.revokedAt = try c("revoked_at")
        token.redirectURI = try c("redirect_uri")
        token.codeChallenge = try c("code_challenge")
        token.device = try c("device")
        return token
    }
}
