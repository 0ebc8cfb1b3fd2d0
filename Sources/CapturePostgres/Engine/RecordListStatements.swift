import PostgresNIO

// A record's lists, read with every record a reply shows (`/entity`, the server API, a changed record's reply):
// prepared once per connection so that PostgreSQL plans each once, not per read. The columns are named, not `*`: a
// prepared statement whose rows change shape fails, and another instance's migration may add a column meanwhile.

/// A user's linked accounts, oldest first (the columns `PostgresIdentityRepository.record` reads).
struct IdentitiesOfUserStatement: KeyedStatement {
    static let name = "capture_identities_of_user"
    static let sql = """
        SELECT provider, subject, user_id, email, vouched, linked_at, provider_token, last_used_at
        FROM identities WHERE user_id = $1 ORDER BY linked_at, provider
        """
    let key: String
}

/// A user's passkeys, oldest first (the columns `PostgresPasskeyRepository.record` reads).
struct PasskeysOfUserStatement: KeyedStatement {
    static let name = "capture_passkeys_of_user"
    static let sql = """
        SELECT credential_id, user_id, name, public_key, sign_count, backup_eligible, backed_up, transports, created_at,
            last_used_at
        FROM passkeys WHERE user_id = $1 ORDER BY created_at, credential_id
        """
    let key: String
}
