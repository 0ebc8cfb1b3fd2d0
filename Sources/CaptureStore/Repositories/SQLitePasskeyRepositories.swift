import CaptureCore
import Foundation
import GRDB

/// Passkeys in SQLite; the primary key keeps a credential id on one account.
struct SQLitePasskeyRepository: PasskeyRepository {
    let writer: MeteredDatabase

    func insert(_ passkey: Passkey) async throws {
        do {
            try await writer.write { db in try PasskeyRow(passkey).insert(db) }
        } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_PRIMARYKEY {
            throw CaptureError.notPermitted("this passkey is registered already")
        }
    }

    func find(credentialID: String) async throws -> Passkey? {
        try await writer.read { db in try PasskeyRow.fetchOne(db, key: credentialID)?.value }
    }

    /// One indexed statement on the calling thread (`statementRead`): every `capture_user` reply lists them.
    func list(userID: String) async throws -> [Passkey] {
        try await writer.statementRead { db in try Self.list(userID: userID, in: db) }
    }

    /// Through a cached statement: the query interface builds its SQL anew on every call (about 30 µs).
    static func list(userID: String, in db: Database) throws -> [Passkey] {
        let statement = try db.cachedStatement(
            sql: "SELECT * FROM passkeys WHERE userID = ? ORDER BY createdAt, credentialID")
        return try PasskeyRow.fetchAll(statement, arguments: [userID]).map(\.value)
    }

    func use<Verdict: Sendable>(
        credentialID: String, _ decide: @Sendable (Passkey?) -> (Passkey?, Verdict)
    ) async throws -> Verdict {
        try await writer.write { db in
            let (changed, verdict) = decide(try PasskeyRow.fetchOne(db, key: credentialID)?.value)
            try changed.map(PasskeyRow.init)?.save(db)
            return verdict
        }
    }

    func remove(credentialID: String, userID: String) async throws -> Bool {
        try await writer.write { db in
            try PasskeyRow.filter(Column("credentialID") == credentialID && Column("userID") == userID).deleteAll(db) > 0
        }
    }

    func removeAll(userID: String) async throws -> Int {
        try await writer.write { db in try PasskeyRow.filter(Column("userID") == userID).deleteAll(db) }
    }
}

/// Ceremonies under way in SQLite; `use` reads and writes in one write transaction, so a challenge is taken once.
/// Each insert also deletes a few expired ones, so options asked for and never answered do not pile up between purges.
struct SQLiteCeremonyRepository: CeremonyRepository {
    let writer: MeteredDatabase

    func insert(_ ceremony: PendingCeremony) async throws {
        try await writer.write { db in
            try db.execute(
                sql: "DELETE FROM ceremonies WHERE hash IN (SELECT hash FROM ceremonies WHERE expiresAt < ? LIMIT 16)",
                arguments: [ceremony.createdAt])
            try CeremonyRow(ceremony).insert(db)
        }
    }

    func use<Verdict: Sendable>(
        hash: String, _ decide: @Sendable (PendingCeremony?) -> (PendingCeremony?, Verdict)
    ) async throws -> Verdict {
        try await writer.write { db in
            let found = try CeremonyRow.fetchOne(db, key: hash)?.value
            let (changed, verdict) = decide(found)
            if let changed {
                try CeremonyRow(changed).save(db)
            } else if found != nil {
                try CeremonyRow.deleteOne(db, key: hash)
            }
            return verdict
        }
    }

    func purge(expiredBefore cutoff: Date) async throws -> Int {
        try await writer.write { db in try CeremonyRow.filter(Column("expiresAt") < cutoff).deleteAll(db) }
    }
}

/// Second factors in SQLite, one row per account.
struct SQLiteSecondFactorRepository: SecondFactorRepository {
    let writer: MeteredDatabase

    func find(userID: String) async throws -> SecondFactor? {
        try await writer.read { db in try SecondFactorRow.fetchOne(db, key: userID)?.value }
    }

    func save(_ factor: SecondFactor) async throws {
        try await writer.write { db in try SecondFactorRow(factor).save(db) }
    }

    func use<Verdict: Sendable>(
        userID: String, _ decide: @Sendable (SecondFactor?) -> (SecondFactor?, Verdict)
    ) async throws -> Verdict {
        try await writer.write { db in
            let (changed, verdict) = decide(try SecondFactorRow.fetchOne(db, key: userID)?.value)
            try changed.map(SecondFactorRow.init)?.save(db)
            return verdict
        }
    }

    func remove(userID: String) async throws -> Bool {
        try await writer.write { db in try SecondFactorRow.deleteOne(db, key: userID) }
    }
}
