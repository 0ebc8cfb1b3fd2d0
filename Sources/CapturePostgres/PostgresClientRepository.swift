import CaptureCore
import Foundation
import PostgresNIO

/// Clients in PostgreSQL; every change bumps the `clients` change counter (a statement trigger), whose notice
/// keeps `changes` (when it runs) up to date, so that the version costs no round trip.
struct PostgresClientRepository: ClientRepository {
    let store: PostgresStore
    let changes: PostgresChangeListener?

    func upsert(_ client: Client) async throws {
        try await store.query(
            Self.insert(
                client,
                onConflict: """
                    ON CONFLICT (client_id) DO UPDATE SET name = excluded.name, secret_hash = excluded.secret_hash,
                        redirect_uris = excluded.redirect_uris, allowed_origins = excluded.allowed_origins,
                        response_types = excluded.response_types, legacy_token_url = excluded.legacy_token_url,
                        access_token_life_hours = excluded.access_token_life_hours,
                        keep_sessions_on_password_change = excluded.keep_sessions_on_password_change,
                        require_verified_email = excluded.require_verified_email,
                        allow_unverified_email = excluded.allow_unverified_email, features = excluded.features,
                        whitelist = excluded.whitelist, sealed_secret = excluded.sealed_secret,
                        retiring_secret_hash = excluded.retiring_secret_hash,
                        retiring_sealed_secret = excluded.retiring_sealed_secret,
                        retiring_secret_expires_at = excluded.retiring_secret_expires_at, created_at = excluded.created_at
                    """))
        await changed()
    }

    func insert(_ client: Client) async throws {
        do {
            try await store.query(Self.insert(client, onConflict: ""))
        } catch let error as PSQLError where error.isUniqueViolation {
            throw CaptureError.notPermitted("client '\(client.clientID)' already exists")
        }
        await changed()
    }

    /// After a change through this instance: its own next request sees the new version at once, not once the
    /// notice arrives.
    private func changed() async {
        guard let changes, let version = try? await readVersion() else { return }
        changes.noteClientsVersion(version)
    }

    private static func insert(_ client: Client, onConflict: String) -> PostgresQuery {
        """
        INSERT INTO clients (client_id, name, secret_hash, redirect_uris, allowed_origins, response_types,
            legacy_token_url, access_token_life_hours, keep_sessions_on_password_change, require_verified_email,
            allow_unverified_email, features, whitelist, sealed_secret, retiring_secret_hash, retiring_sealed_secret,
            retiring_secret_expires_at, created_at)
        VALUES (\(client.clientID), \(client.name), \(client.secretHash), \(client.redirectURIs),
            \(client.allowedOrigins), \(client.responseTypes.map(\.rawValue)), \(client.legacyTokenURL), \(client.accessTokenLifeHours),
            \(client.keepSessionsOnPasswordChange), \(client.requireVerifiedEmail), \(client.allowUnverifiedEmail),
            \(client.features.sorted().map(\.rawValue)), \(client.whitelist), \(client.sealedSecret), \(client.retiringSecret?.hash),
            \(client.retiringSecret?.sealed), \(client.retiringSecret?.expiresAt), \(client.createdAt))
        \(unescaped: onConflict)
        """
    }

    func find(id: String) async throws -> Client? {
        try await store.query("SELECT * FROM clients WHERE client_id = \(id)").first.map(Self.record)
    }

    /// The clients' version; token lookups read it in their own statement, as a subquery.
    static let versionQuery = "SELECT version FROM change_counters WHERE name = 'clients'"

    func version() async throws -> Int64 {
        if let known = changes?.clientsVersion { return known }
        return try await readVersion()
    }

    private func readVersion() async throws -> Int64 {
        try await store.query("\(unescaped: Self.versionQuery)", operation: "version()")
            .first.map { try Columns($0)("version", as: Int64.self) } ?? 0
    }

    func list() async throws -> [Client] {
        try await store.query("SELECT * FROM clients ORDER BY client_id").map(Self.record)
    }

    func delete(id: String) async throws -> Bool {
        let deleted = try await !store.query("DELETE FROM clients WHERE client_id = \(id) RETURNING 1").isEmpty
        await changed()
        return deleted
    }

    static func record(_ row: PostgresRow) throws -> Client {
        let c = Columns(row)
        var client = Client(
            clientID: try c("client_id"), name: try c("name"), secretHash: try c("secret_hash"),
            redirectURIs: try c("redirect_uris"), allowedOrigins: try c("allowed_origins"),
            responseTypes: ResponseType.list(try c("response_types")), legacyTokenURL: try c("legacy_token_url"),
            accessTokenLifeHours: try c("access_token_life_hours"), createdAt: try c("created_at"))
        client.keepSessionsOnPasswordChange = try c("keep_sessions_on_password_change")
        client.requireVerifiedEmail = try c("require_verified_email")
        client.allowUnverifiedEmail = try c("allow_unverified_email")
        client.features = Set((try c("features", as: [String].self)).compactMap(ClientFeature.init(rawValue:)))
        client.whitelist = try c("whitelist")
        client.sealedSecret = try c("sealed_secret")
        let retiringHash: String? = try c("retiring_secret_hash")
        let retiringExpiry: Date? = try c("retiring_secret_expires_at")
        if let hash = retiringHash, let expiry = retiringExpiry {
            client.retiringSecret = RetiringSecret(hash: hash, sealed: try c("retiring_sealed_secret"), expiresAt: expiry)
        }
        return client
    }
}
