import CaptureCore
import Foundation
import NIOSSL
import PostgresNIO

/// A PostgreSQL database opened as the service's store: a connection pool (postgres-nio's `PostgresClient`, run
/// in a task of its own until `close`), migrated, and the repositories over it.
public final class PostgresDatabase: Sendable {
    public let location: PostgresLocation
    let client: PostgresClient
    private let runner: Task<Void, Never>

    private init(location: PostgresLocation, client: PostgresClient) {
        self.location = location
        self.client = client
        runner = Task { await client.run() }
    }

    /// Connects (the first connection proves the server, credentials and database), migrates, and returns the
    /// database; on failure nothing is left running.
    public static func open(_ location: PostgresLocation) async throws -> PostgresDatabase {
        let database = PostgresDatabase(location: location, client: PostgresClient(configuration: try configuration(location)))
        do {
            try await PostgresMigrations.migrate(database.client, location: location.description)
            return database
        } catch {
            await database.close()
            throw error
        }
    }

    public func repositories(metrics: CaptureMetrics = .facade) -> Repositories {
        func named(_ repository: String) -> PostgresStore {
            PostgresStore(client: client, repository: repository, metrics: metrics)
        }
        return Repositories(
            users: PostgresUserRepository(store: named("users")),
            tokens: PostgresTokenRepository(store: named("tokens")),
            clients: PostgresClientRepository(store: named("clients")),
            throttle: PostgresThrottleRepository(store: named("throttle")),
            codes: PostgresCodeRepository(store: named("codes")),
            outbox: PostgresOutboxRepository(store: named("outbox")),
            socialLogins: PostgresSocialLoginRepository(store: named("social_logins")),
            identities: PostgresIdentityRepository(store: named("identities")),
            audit: PostgresAuditRepository(store: named("audit_log")),
            adminKeys: PostgresAdminKeyRepository(store: named("admin_keys")),
            isReady: { [client] in
                (try? await client.query("SELECT 1 AS one").collect().first.map { try Columns($0)("one", as: Int.self) }) == 1
            })
    }

    /// Whole rows, for `capturectl db copy`.
    public func rowStore(metrics: CaptureMetrics = .facade) -> any RowStore {
        PostgresRowStore(store: PostgresStore(client: client, repository: "copy", metrics: metrics))
    }

    /// Stops the pool: connections close, queries still waiting fail.
    public func close() async {
        runner.cancel()
        await runner.value
    }

    private static func configuration(_ location: PostgresLocation) throws -> PostgresClient.Configuration {
        var configuration: PostgresClient.Configuration
        if let directory = location.socketDirectory {
            configuration = PostgresClient.Configuration(
                unixSocketPath: "\(directory)/.s.PGSQL.\(location.port)", username: location.user,
                password: location.password, database: location.database)
        } else {
            let tls: PostgresClient.Configuration.TLS
            switch location.tls {
            case .disable: tls = .disable
            case .prefer: tls = .prefer(.makeClientConfiguration())
            case .require: tls = .require(.makeClientConfiguration())
            }
            configuration = PostgresClient.Configuration(
                host: location.host, port: location.port, username: location.user, password: location.password,
                database: location.database, tls: tls)
        }
        configuration.options.maximumConnections = location.maxConnections
        configuration.options.connectionIdleTimeout = .seconds(location.idleSeconds)
        configuration.options.connectTimeout = .seconds(10)
        return configuration
    }
}
