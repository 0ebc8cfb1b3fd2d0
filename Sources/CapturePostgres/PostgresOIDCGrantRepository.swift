import CaptureCore
import Foundation
import PostgresNIO

/// OpenID Connect grants in PostgreSQL, one row per token chain.
struct PostgresOIDCGrantRepository: OIDCGrantRepository {
    let store: PostgresStore

    func insert(_ grant: OIDCGrant) async throws {
        _ = try await store.query(
            """
            INSERT INTO oidc_grants (chain_id, issuer, client_id, user_id, scopes, nonce, auth_time, methods, acr,
                session_id, expires_at)
            VALUES (\(grant.chainID), \(grant.issuer), \(grant.clientID), \(grant.userID),
                \(grant.scopes.joined(separator: " ")), \(grant.nonce), \(grant.authTime),
                \(grant.methods.joined(separator: " ")), \(grant.acr), \(grant.sessionID), \(grant.expiresAt))
            """)
    }

    func find(chainID: String) async throws -> OIDCGrant? {
        try await store.query("SELECT * FROM oidc_grants WHERE chain_id = \(chainID)").first.map(Self.grant)
    }

    func grants(inSession sessionID: String) async throws -> [OIDCGrant] {
        try await store.query("SELECT * FROM oidc_grants WHERE session_id = \(sessionID)").map(Self.grant)
    }

    func removeSession(_ sessionID: String) async throws -> Int {
        try await count("DELETE FROM oidc_grants WHERE session_id = \(sessionID) RETURNING 1")
    }

    func purge(expiredBefore cutoff: Date) async throws -> Int {
        try await count("DELETE FROM oidc_grants WHERE expires_at < \(cutoff) RETURNING 1")
    }

    private func count(_ deletion: PostgresQuery) async throws -> Int {
        try await store.query(deletion).count
    }

    static func grant(_ row: PostgresRow) throws -> OIDCGrant {
        let c = Columns(row)
        let scopes: String = try c("scopes"), methods: String = try c("methods")
        return OIDCGrant(
            chainID: try c("chain_id"), issuer: try c("issuer"), clientID: try c("client_id"), userID: try c("user_id"),
            scopes: scopes.split(separator: " ").map(String.init), nonce: try c("nonce"), authTime: try c("auth_time"),
            methods: methods.split(separator: " ").map(String.init), acr: try c("acr"), sessionID: try c("session_id"),
            expiresAt: try c("expires_at"))
    }
}
