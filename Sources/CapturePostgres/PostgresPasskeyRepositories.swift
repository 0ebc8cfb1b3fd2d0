import CaptureCore
import Foundation
import PostgresNIO

/// Passkeys in PostgreSQL; the primary key keeps a credential id on one account. `use` reads its row `FOR UPDATE`,
/// so sign-ins racing with one counter value are decided one after the other.
struct PostgresPasskeyRepository: PasskeyRepository {
    let store: PostgresStore

    func insert(_ passkey: Passkey) async throws {
        let inserted = try await store.query(Self.insert(passkey, onConflict: "ON CONFLICT DO NOTHING RETURNING 1"))
        guard !inserted.isEmpty else { throw CaptureError.notPermitted("this passkey is registered already") }
    }

    private static func insert(_ passkey: Passkey, onConflict: String) -> PostgresQuery {
        """
        INSERT INTO passkeys (credential_id, user_id, name, public_key, sign_count, backup_eligible, backed_up,
            transports, created_at, last_used_at)
        VALUES (\(passkey.credentialID), \(passkey.userID), \(passkey.name), \(Data(passkey.publicKey).base64URLEncoded()),
            \(Int64(passkey.signCount)), \(passkey.backupEligible), \(passkey.backedUp), \(passkey.transports),
            \(passkey.createdAt), \(passkey.lastUsedAt))
        \(unescaped: onConflict)
        """
    }

    func find(credentialID: String) async throws -> Passkey? {
        try await store.query("SELECT * FROM passkeys WHERE credential_id = \(credentialID)").first.map(Self.record)
    }

    func list(userID: String) async throws -> [Passkey] {
        try await store.read(prepared: PasskeysOfUserStatement(key: userID))
            .map(Self.record)
    }

    func use<Verdict: Sendable>(
        credentialID: String, _ decide: @Sendable (Passkey?) -> (Passkey?, Verdict)
    ) async throws -> Verdict {
        try await store.transaction { connection in
            let found = try await connection.rows(
                "SELECT * FROM passkeys WHERE credential_id = \(credentialID) FOR UPDATE"
            ).first.map(Self.record)
            let (changed, verdict) = decide(found)
            if let changed {
                try await connection.rows(
                    Self.insert(
                        changed,
                        onConflict: """
                            ON CONFLICT (credential_id) DO UPDATE SET name = excluded.name, public_key = excluded.public_key,
                                sign_count = excluded.sign_count, backup_eligible = excluded.backup_eligible,
                                backed_up = excluded.backed_up, transports = excluded.transports,
                                last_used_at = excluded.last_used_at
                            """))
            }
            return verdict
        }
    }

    func remove(credentialID: String, userID: String) async throws -> Bool {
        try await !store.query(
            "DELETE FROM passkeys WHERE credential_id = \(credentialID) AND user_id = \(userID) RETURNING 1"
        ).isEmpty
    }

    func removeAll(userID: String) async throws -> Int {
        try await store.query(
            "WITH gone AS (DELETE FROM passkeys WHERE user_id = \(userID) RETURNING 1) SELECT count(*) AS n FROM gone"
        ).first.map { try Columns($0)("n", as: Int.self) } ?? 0
    }

    static func record(_ row: PostgresRow) throws -> Passkey {
        let c = Columns(row)
        var passkey = Passkey(
            credentialID: try c("credential_id"), userID: try c("user_id"), name: try c("name"),
            publicKey: Data(base64URLEncoded: try c("public_key", as: String.self)).map { Array($0) } ?? [],
            signCount: UInt32(clamping: try c("sign_count", as: Int64.self)), backupEligible: try c("backup_eligible"),
            backedUp: try c("backed_up"), transports: try c("transports"), createdAt: try c("created_at"))
        passkey.lastUsedAt = try c("last_used_at")
        return passkey
    }
}

/// Ceremonies under way in PostgreSQL. `use` reads its row `FOR UPDATE`: a request racing with one that deletes
/// the ceremony waits for it, then finds nothing.
struct PostgresCeremonyRepository: CeremonyRepository {
    let store: PostgresStore

    /// Also deletes a few expired ceremonies, so options asked for and never answered do not pile up between purges.
    func insert(_ ceremony: PendingCeremony) async throws {
        try await store.transaction { connection in
            try await connection.rows(
                """
                DELETE FROM ceremonies WHERE hash IN (
                    SELECT hash FROM ceremonies WHERE expires_at < \(ceremony.createdAt) LIMIT 16 FOR UPDATE SKIP LOCKED)
                """)
            try await connection.rows(Self.insert(ceremony, onConflict: ""))
        }
    }

    private static func insert(_ ceremony: PendingCeremony, onConflict: String) -> PostgresQuery {
        """
        INSERT INTO ceremonies (hash, kind, user_id, client_id, payload, attempts, created_at, expires_at)
        VALUES (\(ceremony.hash), \(ceremony.kind.rawValue), \(ceremony.userID), \(ceremony.clientID),
            \(ceremony.payload), \(ceremony.attempts), \(ceremony.createdAt), \(ceremony.expiresAt))
        \(unescaped: onConflict)
        """
    }

    func use<Verdict: Sendable>(
        hash: String, _ decide: @Sendable (PendingCeremony?) -> (PendingCeremony?, Verdict)
    ) async throws -> Verdict {
        try await store.transaction { connection in
            let found = try await connection.rows("SELECT * FROM ceremonies WHERE hash = \(hash) FOR UPDATE")
                .first.map(Self.record)
            let (changed, verdict) = decide(found)
            if let changed {
                try await connection.rows(
                    Self.insert(
                        changed,
                        onConflict: """
                            ON CONFLICT (hash) DO UPDATE SET kind = excluded.kind, user_id = excluded.user_id,
                                client_id = excluded.client_id, payload = excluded.payload, attempts = excluded.attempts,
                                created_at = excluded.created_at, expires_at = excluded.expires_at
                            """))
            } else if found != nil {
                try await connection.rows("DELETE FROM ceremonies WHERE hash = \(hash)")
            }
            return verdict
        }
    }

    func purge(expiredBefore cutoff: Date) async throws -> Int {
        try await store.query(
            "WITH gone AS (DELETE FROM ceremonies WHERE expires_at < \(cutoff) RETURNING 1) SELECT count(*) AS n FROM gone"
        ).first.map { try Columns($0)("n", as: Int.self) } ?? 0
    }

    /// A row of a kind this build does not know is an error, never read as another kind.
    static func record(_ row: PostgresRow) throws -> PendingCeremony {
        let c = Columns(row)
        let kind: String = try c("kind")
        guard let known = PendingCeremony.Kind(rawValue: kind) else {
            throw CaptureError.unexpected("a ceremony of unknown kind \(kind)")
        }
        var ceremony = PendingCeremony(
            hash: try c("hash"), kind: known, userID: try c("user_id"), clientID: try c("client_id"),
            payload: try c("payload"), createdAt: try c("created_at"), expiresAt: try c("expires_at"))
        ceremony.attempts = try c("attempts")
        return ceremony
    }
}

/// Second factors in PostgreSQL, one row per account. `use` reads its row `FOR UPDATE`, so a code or recovery code
/// racing with itself is accepted once.
struct PostgresSecondFactorRepository: SecondFactorRepository {
    let store: PostgresStore

    func find(userID: String) async throws -> SecondFactor? {
        try await store.query("SELECT * FROM second_factors WHERE user_id = \(userID)").first.map(Self.record)
    }

    func save(_ factor: SecondFactor) async throws {
        try await store.query(Self.upsert(factor))
    }

    func use<Verdict: Sendable>(
        userID: String, _ decide: @Sendable (SecondFactor?) -> (SecondFactor?, Verdict)
    ) async throws -> Verdict {
        try await store.transaction { connection in
            let found = try await connection.rows("SELECT * FROM second_factors WHERE user_id = \(userID) FOR UPDATE")
                .first.map(Self.record)
            let (changed, verdict) = decide(found)
            if let changed { try await connection.rows(Self.upsert(changed)) }
            return verdict
        }
    }

    func remove(userID: String) async throws -> Bool {
        try await !store.query("DELETE FROM second_factors WHERE user_id = \(userID) RETURNING 1").isEmpty
    }

    private static func upsert(_ factor: SecondFactor) -> PostgresQuery {
        """
        INSERT INTO second_factors (user_id, sealed_secret, last_step, recovery_hashes, created_at)
        VALUES (\(factor.userID), \(factor.sealedSecret), \(factor.lastStep), \(factor.recoveryHashes),
            \(factor.createdAt))
        ON CONFLICT (user_id) DO UPDATE SET sealed_secret = excluded.sealed_secret, last_step = excluded.last_step,
            recovery_hashes = excluded.recovery_hashes, created_at = excluded.created_at
        """
    }

    static func record(_ row: PostgresRow) throws -> SecondFactor {
        let c = Columns(row)
        var factor = SecondFactor(
            userID: try c("user_id"), sealedSecret: try c("sealed_secret"), recoveryHashes: try c("recovery_hashes"),
            createdAt: try c("created_at"))
        factor.lastStep = try c("last_step")
        return factor
    }
}
