import CaptureCore
import Foundation
import GRDB

/// Users in SQLite. The unique index on `email` (case-insensitive) settles races between registrations, and
/// `user_unique` those between records claiming the value of a unique schema attribute.
struct SQLiteUserRepository: UserRepository {
    let writer: MeteredDatabase

    func insert(_ user: User, linking identity: LinkedIdentity?) async throws -> User {
        let client = ChangeOrigin.client
        return try await writeMappingDuplicates { db in
            var stored = user
            // Inside the write transaction, so no two records get the same number.
            stored.number = try Int64.fetchOne(db, sql: Self.nextNumber)
            try UserRow(stored).insert(db)
            try Self.writeUniqueValues(of: stored, in: db)
            if let identity { try SQLiteIdentityRepository.link(identity, in: db) }
            try SQLiteWebhookRepository.raise(.created(stored), client: client, in: db)
            return stored
        }
    }

    /// The next Janrain number: past every stored one and past the highest any record ever held (v24).
    static let nextNumber = """
        SELECT MAX(IFNULL((SELECT MAX(number) FROM users), 0), IFNULL((SELECT highest FROM user_number_floor), 0)) + 1
        """

    func update(_ user: User) async throws {
        let client = ChangeOrigin.client
        try await writeMappingDuplicates { db in
            // The record as it was, for the webhooks' changed attributes: read only when a subscription listens.
            var previous: User?
            if try SQLiteWebhookRepository.anyEnabled(in: db) { previous = try Self.user(id: user.id, in: db) }
            try Self.write(user, in: db)
            try Self.writeUniqueValues(of: user, in: db)
            if let previous {
                try SQLiteWebhookRepository.raise(.updated(previous: previous, current: user), client: client, in: db)
            }
        }
    }

    /// Who the account is and whether it may be used: what a kept token check holds of it (`TokenCheckCache`), and
    /// the only columns whose update stamps the user (`ChangeRecorder`).
    static let standingColumns = ["email", "disabledAt", "emailVerifiedAt"]

    /// Columns that other indexes hold and that no profile edit changes (`users_by_creation`, `users_by_number`).
    static let indexedColumns = ["createdAt", "number"]

    /// Every column, except that `standingColumns` and `indexedColumns` are written only when they differ from the
    /// stored ones: a profile edit or a sign-in's `lastLoginAt` leaves the account's kept token checks in place, and
    /// rewrites no index entry whose value stays (each would cost its page in the WAL and again at the checkpoint).
    /// Any doubt (the row not found, a date read back differently) writes them, which only costs those pages.
    static func write(_ user: User, in db: Database) throws {
        let statement = try db.cachedStatement(
            sql: "SELECT email, disabledAt, emailVerifiedAt, createdAt, number FROM users WHERE id = ?")
        let stored = try statement.first(arguments: [user.id]) { row in
            (
                standing: (row[0] as String) == user.email && (row[1] as Date?) == user.disabledAt
                    && (row[2] as Date?) == user.emailVerifiedAt,
                created: (row[3] as Date?) == user.createdAt, number: (row[4] as Int64?) == user.number
            )
        }
        guard let stored, let profileColumns else { return try UserRow(user).update(db) }
        var columns = profileColumns
        if !stored.standing { columns += standingColumns }
        if !stored.created { columns.append("createdAt") }
        if !stored.number { columns.append("number") }
        try UserRow(user).update(db, columns: columns)
    }

    /// Every column `UserRow.encode` writes but the key, `standingColumns` and `indexedColumns`, taken from the
    /// encoding itself, so a column added there is written here too; nil (write them all) if a sample could not be
    /// encoded.
    private static let profileColumns: [String]? = {
        let sample = User(id: "", email: "", passwordHash: nil, createdAt: Date(timeIntervalSinceReferenceDate: 0))
        return (try? UserRow(sample).databaseDictionary.keys).map {
            $0.filter { !(["id"] + standingColumns + indexedColumns).contains($0) }
        }
    }()

    private static let byIDSQL = "SELECT \(UserRow.selection) FROM users WHERE id = ?"

    func find(id: String) async throws -> User? {
        try await writer.statementRead { db in try Self.user(id: id, in: db) }
    }

    /// By primary key through a cached prepared statement (token checks read it with the token), its text made once.
    static func user(id: String, in db: Database) throws -> User? {
        let statement = try db.cachedStatement(sql: byIDSQL)
        return try statement.first(arguments: [id]) { UserRow.user($0, at: 0) }
    }

    func find(email: String) async throws -> User? {
        try await writer.read { db in try UserRow.filter(Column("email") == email).value(db) }
    }

    func find(number: Int64) async throws -> User? {
        try await writer.read { db in try UserRow.filter(Column("number") == number).value(db) }
    }

    func find(unique attribute: String, text: String) async throws -> User? {
        try await writer.read { db in
            try UserRow.filter(
                sql: "id = (SELECT userID FROM user_unique WHERE attribute = ? AND value = ?)", arguments: [attribute, text]
            ).value(db)
        }
    }

    func list(search: String?, page: Page) async throws -> [User] {
        try await writer.read { db in
            var request = UserRow.all()
            if let search, !search.isEmpty {
                // LIKE with the wildcards of the search itself escaped: a search for "a_b" finds only "a_b".
                let pattern =
                    "%"
                    + search.replacingOccurrences(of: "\\", with: "\\\\")
                    .replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_") + "%"
                request = request.filter(
                    sql: "(email LIKE ? ESCAPE '\\' OR json_extract(profile, '$.displayName') LIKE ? ESCAPE '\\')",
                    arguments: [pattern, pattern])
            }
            return try request.order(Column("createdAt"), Column("id")).limit(page.limit, offset: page.offset).values(db)
        }
    }

    func delete(id: String) async throws -> Bool {
        // Every table that names a user (tokens, codes, identities, user_unique, passkeys, ceremonies, second_factors)
        // references users ON DELETE CASCADE (foreign keys are on).
        let client = ChangeOrigin.client
        return try await writer.write { db in
            guard let user = try Self.user(id: id, in: db) else { return false }
            try SQLiteWebhookRepository.raise(.deleted(user, erased: false), client: client, in: db)
            return try UserRow.deleteOne(db, key: id)
        }
    }

    func deletionsRequested(before cutoff: Date, limit: Int) async throws -> [User] {
        try await writer.read { db in
            try UserRow.filter(Column("deleteRequestedAt") <= cutoff).order(Column("deleteRequestedAt"), Column("id"))
                .limit(limit).values(db)
        }
    }

    func erase(_ user: User, pseudonym: String) async throws -> Bool {
        let client = ChangeOrigin.client
        return try await writer.write { db in
            // The user's events already delivered or given up go (a payload may hold values); pending ones, this
            // erasure's among them, are still delivered.
            try db.execute(sql: "DELETE FROM webhook_events WHERE userID = ? AND status <> 'pending'", arguments: [user.id])
            if let stored = try Self.user(id: user.id, in: db) {
                try SQLiteWebhookRepository.raise(.deleted(stored, erased: true), client: client, in: db)
            }
            // Its messages, and those to its address that no longer wait (a reset asked for before it registered, a
            // delivered notice); a waiting deletion notice goes out first and then forgets its recipient.
            try db.execute(
                sql: "DELETE FROM outbox WHERE userID = ? OR (recipient = ? AND status NOT IN (?, ?))",
                arguments: [
                    user.id, user.email, OutboxEntry.Status.pending.rawValue, OutboxEntry.Status.deferred.rawValue,
                ])
            try db.execute(
                sql: "UPDATE audit_log SET target = ?, detail = NULL WHERE target = ? OR lower(target) = ?",
                arguments: [pseudonym, user.id, user.email.lowercased()])
            return try UserRow.deleteOne(db, key: user.id)
        }
    }

    /// `secure_delete` zeroed the erased rows in the changed pages; the truncated WAL no longer holds their old images.
    func scrubErased() async throws { try await writer.truncateLog() }

    /// Replaces the record's entries when its profile changed (`uniqueValues` set); otherwise leaves them.
    private static func writeUniqueValues(of user: User, in db: Database) throws {
        guard let values = user.uniqueValues else { return }
        // Cached: every profile write runs it.
        try db.cachedStatement(sql: "DELETE FROM user_unique WHERE userID = ?").execute(arguments: [user.id])
        for (attribute, value) in values.sorted(by: { $0.key < $1.key }) {
            do {
                try db.cachedStatement(sql: "INSERT INTO user_unique (attribute, value, userID) VALUES (?, ?, ?)")
                    .execute(arguments: [attribute, value, user.id])
            } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_PRIMARYKEY {
                throw CaptureError.schemaViolation(SchemaViolation(.unique, attribute, "this \(attribute) is already taken"))
            }
        }
    }

    private func writeMappingDuplicates<T: Sendable>(
        _ body: @escaping @Sendable (Database) throws -> T, operation: String = #function
    ) async throws -> T {
        do {
            return try await writer.write(body, operation: operation)
        } catch let error as DatabaseError where error.isUniqueViolation {
            throw CaptureError.emailAddressInUse(field: "email")
        }
    }
}
