import CaptureCore
import Foundation
import PostgresNIO

/// Users in PostgreSQL. The unique index on `lower(email)` settles races between registrations, and `user_unique`
/// those between records claiming the value of a unique schema attribute. Janrain numbers are given under an
/// advisory lock, so two instances never hand out the same one.
struct PostgresUserRepository: UserRepository {
    let store: PostgresStore

    static let names = [
        "id", "number", "email", "password_hash", "profile", "last_element_id", "email_verified_at", "created_at",
        "updated_at", "last_login_at", "disabled_at", "delete_requested_at",
    ]

    /// The columns, from `table` and renamed with `prefix` when the row also holds another table's.
    static func columns(prefix: String = "", table: String = "users") -> String {
        names.map { "\(table).\($0) AS \(prefix)\($0)" }.joined(separator: ", ")
    }

    func insert(_ user: User, linking identity: LinkedIdentity?) async throws -> User {
        let client = ChangeOrigin.client
        return try await mappingDuplicates {
            try await store.transaction { connection in
                var stored = user
                stored.number = try await Self.nextNumber(on: connection)
                try await Self.insert(stored, on: connection)
                try await Self.claim(stored.uniqueValues, for: stored.id, on: connection)
                if let identity { try await PostgresIdentityRepository.link(identity, on: connection) }
                try await PostgresWebhookRepository.raise(.created(stored), client: client, on: connection)
                return stored
            }
        }
    }

    func update(_ user: User) async throws {
        let client = ChangeOrigin.client
        try await mappingDuplicates {
            try await store.transaction { connection in
                // No subscription listening (the common case): one prepared statement writes the row and releases
                // the record's unique values, answering whether one is enabled. One listening: the row as it was
                // (locked, for the webhooks' changed attributes), then the same statement. A plain UPDATE plans and
                // runs at about 0.6 of the cost of one joined to its own old row (pgbench, docs/benchmarks.md).
                if try await Self.write(user, unlessListening: true, on: connection) {
                    let previous = try await connection.rows(
                        "SELECT \(unescaped: Self.columns()) FROM users WHERE id = \(user.id) FOR UPDATE"
                    ).first.map { try Self.record($0) }
                    _ = try await Self.write(user, unlessListening: false, on: connection)
                    try await Self.claim(user.uniqueValues, for: user.id, on: connection)
                    if let previous {
                        try await PostgresWebhookRepository.raise(
                            .updated(previous: previous, current: user), client: client, on: connection)
                    }
                } else {
                    try await Self.claim(user.uniqueValues, for: user.id, on: connection)
                }
            }
        }
    }

    /// Writes `user`'s row (`UserWriteStatement`); whether a webhook subscription is listening.
    private static func write(_ user: User, unlessListening: Bool, on connection: PostgresConnection) async throws -> Bool {
        try await connection.rows(UserWriteStatement(user: user, unlessListening: unlessListening)).first
            .map { try Columns($0)("listening", as: Bool.self) } ?? false
    }

    func find(id: String) async throws -> User? {
        try await store.query("SELECT \(unescaped: Self.columns()) FROM users WHERE id = \(id)").first.map { try Self.record($0) }
    }

    func find(email: String) async throws -> User? {
        try await store.query("SELECT \(unescaped: Self.columns()) FROM users WHERE lower(email) = lower(\(email))")
            .first.map { try Self.record($0) }
    }

    func find(number: Int64) async throws -> User? {
        try await store.query("SELECT \(unescaped: Self.columns()) FROM users WHERE number = \(number)")
            .first.map { try Self.record($0) }
    }

    func find(unique attribute: String, text: String) async throws -> User? {
        try await store.query(
            """
            SELECT \(unescaped: Self.columns()) FROM users
            WHERE id = (SELECT user_id FROM user_unique WHERE attribute = \(attribute) AND value = \(text))
            """
        ).first.map { try Self.record($0) }
    }

    func list(search: String?, page: Page) async throws -> [User] {
        if let search, !search.isEmpty {
            // ILIKE with the wildcards of the search itself escaped: a search for "a_b" finds only "a_b".
            let pattern =
                "%"
                + search.replacingOccurrences(of: "\\", with: "\\\\")
                .replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_") + "%"
            return try await store.query(
                """
                SELECT \(unescaped: Self.columns()) FROM users
                WHERE email ILIKE \(pattern) OR users.profile::json ->> 'displayName' ILIKE \(pattern)
                ORDER BY created_at, id LIMIT \(page.limit) OFFSET \(page.offset)
                """
            ).map { try Self.record($0) }
        }
        return try await store.query(
            """
            SELECT \(unescaped: Self.columns()) FROM users ORDER BY created_at, id
            LIMIT \(page.limit) OFFSET \(page.offset)
            """
        ).map { try Self.record($0) }
    }

    func delete(id: String) async throws -> Bool {
        // tokens, codes, identities, user_unique, passkeys, ceremonies and second_factors reference users ON DELETE
        // CASCADE.
        // In a transaction, so that this instance retires the user's kept token checks before it answers.
        let client = ChangeOrigin.client
        return try await store.transaction { connection in
            let subscriptions = try await PostgresWebhookRepository.enabledSubscriptions(on: connection)
            if !subscriptions.isEmpty,
                let user = try await connection.rows(
                    "SELECT \(unescaped: Self.columns()) FROM users WHERE id = \(id) FOR UPDATE"
                ).first.map({ try Self.record($0) })
            {
                try await PostgresWebhookRepository.raise(
                    .deleted(user, erased: false), client: client, to: subscriptions, on: connection)
            }
            return try await !connection.rows("DELETE FROM users WHERE id = \(id) RETURNING id").isEmpty
        }
    }

    func deletionsRequested(before cutoff: Date, limit: Int) async throws -> [User] {
        try await store.query(
            """
            SELECT \(unescaped: Self.columns()) FROM users WHERE delete_requested_at <= \(cutoff)
            ORDER BY delete_requested_at, id LIMIT \(limit)
            """
        ).map { try Self.record($0) }
    }

    /// VACUUM makes the dead versions of the erased rows free space, and unreachable through SQL; it does not
    /// overwrite them, nor the server's WAL segments and backups (docs/privacy.md, "Erasure on disk").
    func scrubErased() async throws {
        try await store.query(
            "VACUUM users, user_unique, outbox, audit_log, codes, identities, passkeys, second_factors, webhook_events, webhook_attempts"
        )
    }

    func erase(_ user: User, pseudonym: String) async throws -> Bool {
        let client = ChangeOrigin.client
        return try await store.transaction { connection in
            // As on SQLite: the user's delivered and failed events go, pending ones are still delivered.
            try await connection.rows("DELETE FROM webhook_events WHERE user_id = \(user.id) AND status <> 'pending'")
            let subscriptions = try await PostgresWebhookRepository.enabledSubscriptions(on: connection)
            if !subscriptions.isEmpty,
                let stored = try await connection.rows(
                    "SELECT \(unescaped: Self.columns()) FROM users WHERE id = \(user.id) FOR UPDATE"
                ).first.map({ try Self.record($0) })
            {
                try await PostgresWebhookRepository.raise(
                    .deleted(stored, erased: true), client: client, to: subscriptions, on: connection)
            }
            // As on SQLite: its messages, and those to its address that no longer wait.
            let waiting = [OutboxEntry.Status.pending.rawValue, OutboxEntry.Status.deferred.rawValue]
            try await connection.rows(
                """
                DELETE FROM outbox WHERE user_id = \(user.id)
                OR (recipient = \(user.email) AND status <> \(waiting[0]) AND status <> \(waiting[1]))
                """)
            try await connection.rows(
                """
                UPDATE audit_log SET target = \(pseudonym), detail = NULL
                WHERE target = \(user.id) OR lower(target) = \(user.email.lowercased())
                """)
            return try await !connection.rows("DELETE FROM users WHERE id = \(user.id) RETURNING id").isEmpty
        }
    }

    func importBatch(_ users: [User]) async throws -> [Result<User, ImportConflict>] {
        let client = ChangeOrigin.client
        return try await store.transaction { connection in
            try await connection.lock("users.number")
            var outcomes = [Result<User, ImportConflict>?](repeating: nil, count: users.count)
            var renumber: [Int] = []
            // Records whose number is taken are stored last, past the largest number, so they do not take a number
            // a later record of the batch brings.
            for (index, user) in users.enumerated() {
                if let number = user.number,
                    try await !connection.rows("SELECT 1 FROM users WHERE number = \(number)").isEmpty
                {
                    renumber.append(index)
                } else {
                    outcomes[index] = try await Self.imported(user, number: user.number, on: connection)
                }
            }
            for index in renumber {
                outcomes[index] = try await Self.imported(users[index], number: nil, on: connection)
            }
            let results = outcomes.map { $0! }
            let subscriptions = try await PostgresWebhookRepository.enabledSubscriptions(on: connection)
            for case .success(let stored) in results {
                try await PostgresWebhookRepository.raise(.created(stored), client: client, to: subscriptions, on: connection)
            }
            return results
        }
    }

    /// Stores one record under `number` (the next free one when nil), or names what another record already holds;
    /// a savepoint takes the row back when one of its unique values is taken.
    private static func imported(
        _ user: User, number: Int64?, on connection: PostgresConnection
    ) async throws -> Result<User, ImportConflict> {
        if try await !connection.rows("SELECT 1 FROM users WHERE id = \(user.id)").isEmpty { return .failure(.id) }
        if try await !connection.rows("SELECT 1 FROM users WHERE lower(email) = lower(\(user.email))").isEmpty {
            return .failure(.email)
        }
        var stored = user
        if let number {
            stored.number = number
        } else {
            stored.number = try await nextNumber(on: connection, locked: true)
        }
        try await connection.rows("SAVEPOINT imported")
        try await insert(stored, on: connection)
        for (attribute, value) in (stored.uniqueValues ?? [:]).sorted(by: { $0.key < $1.key }) {
            guard try await claim(attribute, value, for: stored.id, on: connection) else {
                try await connection.rows("ROLLBACK TO SAVEPOINT imported")
                return .failure(.unique(attribute))
            }
        }
        try await connection.rows("RELEASE SAVEPOINT imported")
        return .success(stored)
    }

    /// The next Janrain number; the lock is held until the transaction ends.
    private static func nextNumber(on connection: PostgresConnection, locked: Bool = false) async throws -> Int64 {
        if !locked { try await connection.lock("users.number") }
        // Past every stored number and past the highest any record ever held (p19): ids are never given again.
        return try await connection.rows(
            """
            SELECT GREATEST(COALESCE(MAX(number), 0), COALESCE((SELECT highest FROM user_number_floor), 0)) + 1 AS n
            FROM users
            """
        )
        .first.map { try Columns($0)("n", as: Int64.self) } ?? 1
    }

    private static func insert(_ user: User, on connection: PostgresConnection) async throws {
        try await connection.rows(
            """
            INSERT INTO users (id, number, email, password_hash, profile, last_element_id, email_verified_at,
                created_at, updated_at, last_login_at, disabled_at, delete_requested_at)
            VALUES (\(user.id), \(user.number), \(user.email), \(user.passwordHash), \(StoredJSON.text(user.profile)),
                \(user.lastElementID), \(user.emailVerifiedAt), \(user.createdAt), \(user.updatedAt),
                \(user.lastLoginAt), \(user.disabledAt), \(user.deleteRequestedAt))
            """)
    }

    /// Claims `values` for `userID` (a new record's, or a changed profile's once `write` released the old ones).
    private static func claim(_ values: [String: String]?, for userID: String, on connection: PostgresConnection) async throws {
        for (attribute, value) in (values ?? [:]).sorted(by: { $0.key < $1.key }) {
            guard try await claim(attribute, value, for: userID, on: connection) else {
                throw CaptureError.schemaViolation(SchemaViolation(.unique, attribute, "this \(attribute) is already taken"))
            }
        }
    }

    /// False when another record holds the value (the statement does not fail, so the transaction goes on).
    private static func claim(
        _ attribute: String, _ value: String, for userID: String, on connection: PostgresConnection
    ) async throws -> Bool {
        try await !connection.rows(
            """
            INSERT INTO user_unique (attribute, value, user_id) VALUES (\(attribute), \(value), \(userID))
            ON CONFLICT DO NOTHING RETURNING 1
            """
        ).isEmpty
    }

    private func mappingDuplicates<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as PSQLError where error.isUniqueViolation {
            throw CaptureError.emailAddressInUse(field: "email")
        }
    }

    /// Without `parsingProfile`, the profile is left empty (the caller reads its text, column `profile`).
    static func record(_ row: PostgresRow, prefix: String = "", parsingProfile: Bool = true) throws -> User {
        let c = Columns(row)
        var user = User(
            id: try c(prefix + "id"), email: try c(prefix + "email"), passwordHash: try c(prefix + "password_hash"),
            createdAt: try c(prefix + "created_at"))
        user.number = try c(prefix + "number")
        if parsingProfile { user.profile = StoredJSON.object(try c(prefix + "profile")) ?? [:] }
        user.lastElementID = try c(prefix + "last_element_id")
        user.emailVerifiedAt = try c(prefix + "email_verified_at")
        user.updatedAt = try c(prefix + "updated_at")
        user.lastLoginAt = try c(prefix + "last_login_at")
        user.disabledAt = try c(prefix + "disabled_at")
        user.deleteRequestedAt = try c(prefix + "delete_requested_at")
        return user
    }
}
