import CaptureCore
import Foundation
import PostgresNIO

/// Social sign-ins under way, in PostgreSQL; expired ones are purged a few at a time as new ones arrive. `use`
/// reads its row `FOR UPDATE`, so a state or one-time token is spent once however many instances race for it.
struct PostgresSocialLoginRepository: SocialLoginRepository {
    let store: PostgresStore

    func insert(_ login: SocialLogin) async throws {
        try await store.transaction { connection in
            let cutoff = login.createdAt.addingTimeInterval(-SocialLogin.retention)
            try await connection.rows(
                """
                DELETE FROM social_logins WHERE id IN (
                    SELECT id FROM social_logins WHERE expires_at < \(cutoff) LIMIT 16 FOR UPDATE SKIP LOCKED)
                """)
            try await connection.rows(
                """
                INSERT INTO social_logins (state_hash, provider, client_id, flow, locale, response_type, return_url,
                    nonce, code_verifier, created_at, expires_at, subject, claims, token_hash, token_expires_at, used_at,
                    initiator_challenge, provider_token)
                VALUES (\(login.stateHash), \(login.provider), \(login.clientID), \(login.flow), \(login.locale),
                    \(ResponseType.storedName(of: login.responseType)), \(login.returnURL), \(login.nonce), \(login.codeVerifier), \(login.createdAt),
                    \(login.expiresAt), \(login.subject), \(login.claims.map(StoredJSON.text)), \(login.tokenHash),
                    \(login.tokenExpiresAt), \(login.usedAt), \(login.initiatorChallenge), \(login.providerToken))
                """)
        }
    }

    func use<Verdict: Sendable>(
        stateHash: String, _ decide: @Sendable (SocialLogin?) -> (SocialLogin?, Verdict)
    ) async throws -> Verdict {
        try await use("SELECT * FROM social_logins WHERE state_hash = \(stateHash) FOR UPDATE", decide)
    }

    func use<Verdict: Sendable>(
        tokenHash: String, _ decide: @Sendable (SocialLogin?) -> (SocialLogin?, Verdict)
    ) async throws -> Verdict {
        try await use("SELECT * FROM social_logins WHERE token_hash = \(tokenHash) FOR UPDATE", decide)
    }

    func purge(expiredBefore cutoff: Date) async throws -> Int {
        try await store.query(
            "WITH gone AS (DELETE FROM social_logins WHERE expires_at < \(cutoff) RETURNING 1) SELECT count(*) AS n FROM gone"
        ).first.map { try Columns($0)("n", as: Int.self) } ?? 0
    }

    private func use<Verdict: Sendable>(
        _ select: PostgresQuery, _ decide: @Sendable (SocialLogin?) -> (SocialLogin?, Verdict)
    ) async throws -> Verdict {
        try await store.transaction { connection in
            let found = try await connection.rows(select).first.map(Self.record)
            let (changed, verdict) = decide(found)
            if let changed, let id = changed.id {
                try await connection.rows(
                    """
                    UPDATE social_logins SET expires_at = \(changed.expiresAt), subject = \(changed.subject),
                        claims = \(changed.claims.map(StoredJSON.text)), token_hash = \(changed.tokenHash),
                        token_expires_at = \(changed.tokenExpiresAt), used_at = \(changed.usedAt),
                        provider_token = \(changed.providerToken)
                    WHERE id = \(id)
                    """)
            }
            return verdict
        }
    }

    static func record(_ row: PostgresRow) throws -> SocialLogin {
        let c = Columns(row)
        var login = SocialLogin(
            stateHash: try c("state_hash"), provider: try c("provider"), clientID: try c("client_id"),
            flow: try c("flow"), locale: try c("locale"), responseType: try ResponseType.stored(try c("response_type")),
            returnURL: try c("return_url"), nonce: try c("nonce"), codeVerifier: try c("code_verifier"),
            createdAt: try c("created_at"))
        login.id = try c("id")
        login.expiresAt = try c("expires_at")
        login.subject = try c("subject")
        login.claims = try c("claims", as: String?.self).flatMap(StoredJSON.object)
        login.tokenHash = try c("token_hash")
        login.tokenExpiresAt = try c("token_expires_at")
        login.usedAt = try c("used_at")
        login.initiatorChallenge = try c("initiator_challenge")
        login.providerToken = try c("provider_token")
        return login
    }
}

/// Linked provider accounts, in PostgreSQL; the primary key (provider, subject) keeps one owner per account.
struct PostgresIdentityRepository: IdentityRepository {
    let store: PostgresStore

    func find(provider: String, subject: String) async throws -> LinkedIdentity? {
        try await store.query("SELECT * FROM identities WHERE provider = \(provider) AND subject = \(subject)")
            .first.map(Self.record)
    }

    func list(userID: String) async throws -> [LinkedIdentity] {
        try await store.read(prepared: IdentitiesOfUserStatement(key: userID))
            .map(Self.record)
    }

    func link(_ identity: LinkedIdentity) async throws {
        try await store.transaction { connection in try await Self.link(identity, on: connection) }
    }

    /// Refuses, without failing the transaction, a provider account another user holds.
    static func link(_ identity: LinkedIdentity, on connection: PostgresConnection) async throws {
        let inserted = try await connection.rows(
            """
            INSERT INTO identities (provider, subject, user_id, email, vouched, linked_at, last_used_at, provider_token)
            VALUES (\(identity.provider), \(identity.subject), \(identity.userID), \(identity.email),
                \(identity.vouched), \(identity.linkedAt), \(identity.lastUsedAt), \(identity.providerToken))
            ON CONFLICT DO NOTHING RETURNING 1
            """)
        guard !inserted.isEmpty else {
            throw CaptureError.notPermitted("this \(identity.provider) account is linked to another user")
        }
    }

    func touch(provider: String, subject: String, at date: Date, providerToken: String?) async throws {
        try await store.query(
            """
            UPDATE identities SET last_used_at = \(date), provider_token = coalesce(\(providerToken), provider_token)
            WHERE provider = \(provider) AND subject = \(subject)
            """)
    }

    func unlink(provider: String, subject: String, userID: String) async throws -> Bool {
        try await !store.query(
            """
            DELETE FROM identities WHERE provider = \(provider) AND subject = \(subject) AND user_id = \(userID)
            RETURNING 1
            """
        ).isEmpty
    }

    static func record(_ row: PostgresRow) throws -> LinkedIdentity {
        let c = Columns(row)
        var identity = LinkedIdentity(
            provider: try c("provider"), subject: try c("subject"), userID: try c("user_id"), email: try c("email"),
            vouched: try c("vouched"), linkedAt: try c("linked_at"), providerToken: try c("provider_token"))
        identity.lastUsedAt = try c("last_used_at")
        return identity
    }
}

/// Provider tokens waiting to be revoked, in PostgreSQL. Queueing takes the tokens off the links in the statement
/// that queues them, so two instances deleting one account queue each token once.
struct PostgresProviderRevocationRepository: ProviderRevocationRepository {
    let store: PostgresStore

    func queue(fromLinksOf userID: String, at date: Date) async throws -> Int {
        try await store.query(
            """
            WITH kept AS (
                SELECT provider, subject, provider_token FROM identities
                WHERE user_id = \(userID) AND provider_token IS NOT NULL FOR UPDATE),
            taken AS (
                UPDATE identities SET provider_token = NULL FROM kept
                WHERE identities.provider = kept.provider AND identities.subject = kept.subject
                    AND identities.provider_token IS NOT NULL
                RETURNING kept.provider, kept.provider_token),
            queued AS (
                INSERT INTO provider_revocations (provider, sealed_token, next_attempt_at, queued_at)
                SELECT provider, provider_token, \(date), \(date) FROM taken RETURNING 1)
            SELECT count(*) AS n FROM queued
            """
        ).first.map { try Columns($0)("n", as: Int.self) } ?? 0
    }

    func queue(_ sealedToken: String, provider: String, at date: Date) async throws {
        try await store.query(
            """
            INSERT INTO provider_revocations (provider, sealed_token, next_attempt_at, queued_at)
            VALUES (\(provider), \(sealedToken), \(date), \(date))
            """)
    }

    func due(at date: Date, limit: Int) async throws -> [ProviderRevocation] {
        try await store.query(
            """
            SELECT * FROM provider_revocations WHERE next_attempt_at <= \(date) ORDER BY next_attempt_at, id
            LIMIT \(limit)
            """
        ).map(Self.record)
    }

    static func record(_ row: PostgresRow) throws -> ProviderRevocation {
        let c = Columns(row)
        return ProviderRevocation(
            id: try c("id"), provider: try c("provider"), sealedToken: try c("sealed_token"),
            attempts: try c("attempts", as: Int.self), nextAttemptAt: try c("next_attempt_at"),
            lastError: try c("last_error"), queuedAt: try c("queued_at"))
    }

    func remove(id: Int64) async throws {
        try await store.query("DELETE FROM provider_revocations WHERE id = \(id)")
    }

    func postpone(id: Int64, attempts: Int, until date: Date, error: String) async throws {
        try await store.query(
            """
            UPDATE provider_revocations SET attempts = \(attempts), next_attempt_at = \(date), last_error = \(error)
            WHERE id = \(id)
            """)
    }

    func pendingCount() async throws -> Int {
        try await store.query("SELECT count(*) AS n FROM provider_revocations").first
            .map { try Columns($0)("n", as: Int.self) } ?? 0
    }
}
