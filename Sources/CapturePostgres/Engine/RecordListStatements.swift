import PostgresNIO

// A record's lists, read with every record a reply shows (`/entity`, the server API, a changed record's reply):
// prepared once per connection so that PostgreSQL plans each once, not per read.

/// A user's linked accounts, oldest first.
struct IdentitiesOfUserStatement: KeyedStatement {
    static let name = "capture_identities_of_user"
    static let sql = "SELECT * FROM identities WHERE user_id = $1 ORDER BY linked_at, provider"
    let key: String
}

/// A user's passkeys, oldest first.
struct PasskeysOfUserStatement: KeyedStatement {
    static let name = "capture_passkeys_of_user"
    static let sql = "SELECT * FROM passkeys WHERE user_id = $1 ORDER BY created_at, credential_id"
    let key: String
}
