import PostgresNIO

// The token lookups' statements, prepared once per connection so that PostgreSQL plans each once, not per request.

/// A prepared statement whose one parameter is a key (a token's hash, a user's id), its rows read as they come.
protocol KeyedStatement: PostgresPreparedStatement where Row == PostgresRow {
    var key: String { get }
}

extension KeyedStatement {
    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 1)
        bindings.append(key)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> PostgresRow { row }
}

/// A token by its key: what a code exchange reads before it redeems the code.
struct TokenStatement: KeyedStatement {
    static let name = "capture_token"
    static let sql = "SELECT \(PostgresTokenRepository.columns) FROM tokens WHERE hash = $1"
    let key: String
}

/// A token's first check for `/entity` or a flow call: the token, its user, the clients' version, the user's key for
/// the kept check, and whether the user has linked accounts or passkeys.
struct TokenUserStatement: KeyedStatement {
    static let name = "capture_token_user"
    static let sql = """
        SELECT \(PostgresTokenRepository.columns), \(PostgresUserRepository.columns(prefix: "u_", table: "u")),
            (\(PostgresClientRepository.versionQuery)) AS clients_version,
            hashtextextended(u.id, 0) AS u_key\(PostgresTokenChecks.linkedColumns)
        FROM tokens LEFT JOIN users u ON u.id = tokens.user_id WHERE hash = $1
        """
    let key: String
}

/// A token's first check for introspection or `/verify`: the token, its account's standing (no profile), the clients'
/// version and the user's key for the kept check.
struct TokenAccountStatement: KeyedStatement {
    static let name = "capture_token_account"
    static let sql = """
        SELECT \(PostgresTokenRepository.columns), u.id AS account_id, u.email AS account_email,
            u.disabled_at AS account_disabled_at, u.email_verified_at IS NOT NULL AS account_email_verified,
            (\(PostgresClientRepository.versionQuery)) AS clients_version,
            hashtextextended(u.id, 0) AS account_key
        FROM tokens LEFT JOIN users u ON u.id = tokens.user_id WHERE hash = $1
        """
    let key: String
}

/// A kept check's user by id and whether it has linked accounts or passkeys: the one statement of `/entity` (and of a
/// flow call) whose token check is kept, prepared once per connection, so PostgreSQL plans it once.
struct KeptUserStatement: KeyedStatement {
    static let name = "capture_kept_user"
    static let sql = """
        SELECT \(PostgresUserRepository.columns(prefix: "u_", table: "u"))\(PostgresTokenChecks.linkedColumns)
        FROM users u WHERE u.id = $1
        """
    let key: String
}
