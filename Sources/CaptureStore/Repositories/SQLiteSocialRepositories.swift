import CaptureCore
import Foundation
import GRDB

/// Social sign-ins under way, in SQLite; expired ones are purged a few at a time as new ones arrive.
struct SQLiteSocialLoginRepository: SocialLoginRepository {
    let writer: MeteredDatabase

    func insert(_ login: SocialLogin) async throws {
        try await writer.write { db in
            try db.execute(
                sql: "DELETE FROM social_logins WHERE id IN (SELECT id FROM social_logins WHERE expiresAt < ? LIMIT 16)",
                arguments: [login.createdAt.addingTimeInterval(-SocialLogin.retention)])
            try SocialLoginRow.insert(login, in: db)
        }
    }

    func use<Verdict: Sendable>(
        stateHash: String, _ decide: @Sendable (SocialLogin?) -> (SocialLogin?, Verdict)
    ) async throws -> Verdict {
        try await use(Column("stateHash") == stateHash, decide)
    }

    func use<Verdict: Sendable>(
        tokenHash: String, _ decide: @Sendable (SocialLogin?) -> (SocialLogin?, Verdict)
    ) async throws -> Verdict {
        try await use(Column("tokenHash") == tokenHash, decide)
    }

    func purge(expiredBefore cutoff: Date) async throws -> Int {
        try await writer.write { db in try SocialLoginRow.filter(Column("expiresAt") < cutoff).deleteAll(db) }
    }

    private func use<Verdict: Sendable>(
        _ filter: SQLExpression, _ decide: @Sendable (SocialLogin?) -> (SocialLogin?, Verdict)
    ) async throws -> Verdict {
        try await writer.write { db in
            let found = try SocialLoginRow.filter(filter).value(db)
            let (changed, verdict) = decide(found)
            if let changed {
                var row = SocialLoginRow(changed)
                try row.save(db)
            }
            return verdict
        }
    }
}

/// Linked provider accounts, in SQLite; the primary key (provider, subject) keeps one owner per account.
struct SQLiteIdentityRepository: IdentityRepository {
    let writer: MeteredDatabase

    func find(provider: String, subject: String) async throws -> LinkedIdentity? {
        try await writer.read { db in try IdentityRow.fetchOne(db, key: ["provider": provider, "subject": subject])?.value }
    }

    /// One indexed statement on the calling thread (`statementRead`): every `capture_user` reply lists them.
    func list(userID: String) async throws -> [LinkedIdentity] {
        try await writer.statementRead { db in try Self.list(userID: userID, in: db) }
    }

    static func list(userID: String, in db: Database) throws -> [LinkedIdentity] {
        let statement = try db.cachedStatement(
            sql: "SELECT * FROM identities WHERE userID = ? ORDER BY linkedAt, provider")
        return try IdentityRow.fetchAll(statement, arguments: [userID]).map(\.value)
    }

    func link(_ identity: LinkedIdentity) async throws {
        try await writer.write { db in try Self.link(identity, in: db) }
    }

    static func link(_ identity: LinkedIdentity, in db: Database) throws {
        do {
            try IdentityRow(identity).insert(db)
        } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_PRIMARYKEY {
            throw CaptureError.notPermitted("this \(identity.provider) account is linked to another user")
        }
    }

    func touch(provider: String, subject: String, at date: Date, providerToken: String?) async throws {
        try await writer.write { db in
            try db.execute(
                sql: """
                    UPDATE identities SET lastUsedAt = ?, providerToken = coalesce(?, providerToken)
                    WHERE provider = ? AND subject = ?
                    """,
                arguments: [date, providerToken, provider, subject])
        }
    }

    func unlink(provider: String, subject: String, userID: String) async throws -> Bool {
        try await writer.write { db in
            try IdentityRow.filter(
                Column("provider") == provider && Column("subject") == subject && Column("userID") == userID
            ).deleteAll(db) > 0
        }
    }
}

/// Provider tokens waiting to be revoked, in SQLite.
struct SQLiteProviderRevocationRepository: ProviderRevocationRepository {
    let writer: MeteredDatabase

    func queue(fromLinksOf userID: String, at date: Date) async throws -> Int {
        try await writer.write { db in
            try db.execute(
                sql: """
                    INSERT INTO provider_revocations (provider, sealedToken, nextAttemptAt, queuedAt)
                    SELECT provider, providerToken, ?, ? FROM identities WHERE userID = ? AND providerToken IS NOT NULL
                    """,
                arguments: [date, date, userID])
            let queued = db.changesCount
            try db.execute(sql: "UPDATE identities SET providerToken = NULL WHERE userID = ?", arguments: [userID])
            return queued
        }
    }

    func queue(_ sealedToken: String, provider: String, at date: Date) async throws {
        try await writer.write { db in
            try db.execute(
                sql: "INSERT INTO provider_revocations (provider, sealedToken, nextAttemptAt, queuedAt) VALUES (?, ?, ?, ?)",
                arguments: [provider, sealedToken, date, date])
        }
    }

    func due(at date: Date, limit: Int) async throws -> [ProviderRevocation] {
        try await writer.read { db in
            try ProviderRevocationRow.fetchAll(
                db, sql: "SELECT * FROM provider_revocations WHERE nextAttemptAt <= ? ORDER BY nextAttemptAt, id LIMIT ?",
                arguments: [date, limit]
            ).map(\.value)
        }
    }

    func remove(id: Int64) async throws {
        try await writer.write { db in try db.execute(sql: "DELETE FROM provider_revocations WHERE id = ?", arguments: [id]) }
    }

    func postpone(id: Int64, attempts: Int, until date: Date, error: String) async throws {
        try await writer.write { db in
            try db.execute(
                sql: "UPDATE provider_revocations SET attempts = ?, nextAttemptAt = ?, lastError = ? WHERE id = ?",
                arguments: [attempts, date, error, id])
        }
    }

    func pendingCount() async throws -> Int {
        try await writer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM provider_revocations") ?? 0 }
    }
}
