import CaptureCache
import CaptureCore
import Foundation
import NIOSSL
import PostgresNIO
import ServiceLifecycle
import Synchronization

/// A PostgreSQL database opened as the service's store: proven and migrated over one connection of its own, then
/// a connection pool (postgres-nio's `PostgresClient`) and the repositories over it. The pool runs as a service of
/// the application's service group (`service`), or, for a program without one, in a task of its own until `close`.
public final class PostgresDatabase: Sendable {
    public let location: PostgresLocation
    let client: PostgresClient
    /// The change notices, for a database run by a service group (`services`); nil for one that runs its own pool
    /// (capturectl, tests), which reads the clients' version per request.
    let changes: PostgresChangeListener?
    /// Token checks kept in memory while `changes` hears every change (the server's); none otherwise.
    let checks: TokenCheckCache?
    private let runner: Task<Void, Never>?

    private init(location: PostgresLocation, client: PostgresClient, runsPool: Bool) {
        self.location = location
        self.client = client
        let changes = runsPool ? nil : PostgresChangeListener(location: location)
        self.changes = changes
        checks = changes.map { TokenCheckCache(stamps: $0.stamps) }
        runner = runsPool ? Task { [client] in await client.run() } : nil
    }

    /// Connects (the first connection proves the server, credentials and database), migrates over that connection,
    /// and returns the database. `runsPool`: false when the caller runs `service` in its service group, so that
    /// the pool starts and stops with the application. On failure nothing is left running.
    public static func open(_ location: PostgresLocation, runsPool: Bool = true) async throws -> PostgresDatabase {
        let connection = try await connect(location)
        do {
            try await PostgresMigrations.migrate(connection, location: location)
            try await connection.close()
        } catch {
            try? await connection.close()
            throw error
        }
        return PostgresDatabase(
            location: location, client: PostgresClient(configuration: try configuration(location)), runsPool: runsPool)
    }

    /// The connection pool and the change notices' listener, for the application's service group (a database opened
    /// with `runsPool: false`): they serve while the group runs, and stop after the services started before them.
    public var services: [any Service] { [client] + [changes].compactMap { $0 } }

    public func repositories(metrics: CaptureMetrics = .facade) -> Repositories {
        func named(_ repository: String) -> PostgresStore {
            PostgresStore(
                client: client, repository: repository, metrics: metrics, changes: changes,
                leaseLimit: .seconds(location.connectTimeoutSeconds))
        }
        return Repositories(
            users: PostgresUserRepository(store: named("users")),
            tokens: PostgresTokenRepository(store: named("tokens")),
            checks: PostgresTokenChecks(store: named("tokens")).cached(by: checks, metrics: metrics),
            records: PostgresRecordReads(
                users: PostgresUserRepository(store: named("users")),
                identities: PostgresIdentityRepository(store: named("identities")),
                passkeys: PostgresPasskeyRepository(store: named("passkeys"))),
            clients: PostgresClientRepository(store: named("clients"), changes: changes),
            clientSettings: PostgresClientSettingsRepository(store: named("client_settings")),
            throttle: PostgresThrottleRepository(store: named("throttle")),
            codes: PostgresCodeRepository(store: named("codes")),
            outbox: PostgresOutboxRepository(store: named("outbox")),
            socialLogins: PostgresSocialLoginRepository(store: named("social_logins")),
            identities: PostgresIdentityRepository(store: named("identities")),
            providerRevocations: PostgresProviderRevocationRepository(store: named("provider_revocations")),
            audit: PostgresAuditRepository(store: named("audit_log")),
            adminKeys: PostgresAdminKeyRepository(store: named("admin_keys")),
            passkeys: PostgresPasskeyRepository(store: named("passkeys")),
            ceremonies: PostgresCeremonyRepository(store: named("ceremonies")),
            secondFactors: PostgresSecondFactorRepository(store: named("second_factors")),
            oidcGrants: PostgresOIDCGrantRepository(store: named("oidc_grants")),
            signingKeys: PostgresSigningKeyRepository(store: named("signing_keys")),
            webhooks: PostgresWebhookRepository(store: named("webhooks")),
            isReady: { [client] in
                // A health check answers soon either way: a server that does not answer within 2 s is not ready.
                let one = try? await within(.seconds(2)) {
                    try await client.query("SELECT 1 AS one").collect().first.map { try Columns($0)("one", as: Int.self) }
                }
                return one == 1
            })
    }

    /// Every record as domain values, for `capturectl db copy`.
    public func recordCopy(metrics: CaptureMetrics = .facade) -> any RecordCopying {
        PostgresRecordCopy(store: PostgresStore(client: client, repository: "copy", metrics: metrics))
    }

    /// Stops the pool it runs itself: connections close, queries still waiting fail. (A pool run as a service stops
    /// with its group.)
    public func close() async {
        runner?.cancel()
        await runner?.value
    }

    /// One connection made directly, not through the pool (which would retry for ever): a server that cannot be
    /// reached, a refused password or a missing database stops start-up at once, with the server's reason.
    static func connect(
        _ location: PostgresLocation, extraParameters: [(String, String)] = []
    ) async throws -> PostgresConnection {
        var configuration: PostgresConnection.Configuration
        if let directory = location.socketDirectory {
            configuration = .init(
                unixSocketPath: "\(directory)/.s.PGSQL.\(location.port)", username: location.user,
                password: location.password, database: location.database)
        } else {
            let tls: PostgresConnection.Configuration.TLS
            switch (location.tls, Self.tlsConfiguration(location.tls)) {
            case (.prefer, let settings?): tls = .prefer(try NIOSSLContext(configuration: settings))
            case (_, let settings?): tls = .require(try NIOSSLContext(configuration: settings))
            case (_, nil): tls = .disable
            }
            configuration = .init(
                host: location.host, port: location.port, username: location.user, password: location.password,
                database: location.database, tls: tls)
        }
        configuration.options.connectTimeout = .seconds(Int64(location.connectTimeoutSeconds))
        configuration.options.additionalStartupParameters = startupParameters(location) + extraParameters
        let limit = Duration.seconds(location.connectTimeoutSeconds)
        do {
            // The whole opening, the server's first answers included: a listener that never answers is no server.
            // Opened after the limit (the caller has gone on): nobody else would close it.
            return try await within(limit, abandoned: { try? await $0.close() }) { [configuration] in
                var pause = Duration.milliseconds(50)
                while true {
                    do {
                        return try await PostgresConnection.connect(
                            configuration: configuration, id: 0, logger: PostgresStore.logger)
                    } catch let error as PSQLError where error.serverInfo?[.sqlState] == tooManyConnections {
                        // The server (or the role) is at its connection limit: a slot frees as other clients close,
                        // so the attempt waits for one, within connect_timeout like any other wait for the server.
                        try await Task.sleep(for: pause)
                        pause = min(pause * 2, .seconds(1))
                    }
                }
            }
        } catch let error as PSQLError {
            let reason = error.serverInfo?[.message] ?? error.underlying.map { "\($0)" } ?? "\(error.code)"
            throw PostgresUnavailable(location: location.description, reason: reason)
        } catch is TimedOut {
            throw PostgresUnavailable(
                location: location.description, reason: "no answer within \(location.connectTimeoutSeconds) s (connect_timeout)")
        }
    }

    /// `sslmode` as libpq reads it: `prefer` and `require` encrypt without checking the certificate, `verify-full`
    /// checks it against the system's roots and the host name; nil for `disable`.
    static func tlsConfiguration(_ mode: PostgresLocation.TLSMode) -> TLSConfiguration? {
        var settings = TLSConfiguration.makeClientConfiguration()
        switch mode {
        case .disable: return nil
        case .prefer, .require: settings.certificateVerification = .none
        case .verifyFull: break
        }
        return settings
    }

    /// postgres-nio schedules a timer task each time a connection is handed back with nobody waiting for it (a
    /// keep-alive, an idle timeout); a cancelled timer's task stays in memory until it would have fired. With keep-alive
    /// queries off and a short idle timeout (`pool_idle_seconds`, default 10) that memory stays small at thousands of
    /// statements a second (docs/adr/0048-postgresql-connections-and-pool.md). Every connection the pool opens is closed once idle, so a keep-alive
    /// query would only ever ping one about to close.
    private static func configuration(_ location: PostgresLocation) throws -> PostgresClient.Configuration {
        var configuration: PostgresClient.Configuration
        if let directory = location.socketDirectory {
            configuration = PostgresClient.Configuration(
                unixSocketPath: "\(directory)/.s.PGSQL.\(location.port)", username: location.user,
                password: location.password, database: location.database)
        } else {
            let tls: PostgresClient.Configuration.TLS
            switch (location.tls, Self.tlsConfiguration(location.tls)) {
            case (.prefer, let settings?): tls = .prefer(settings)
            case (_, let settings?): tls = .require(settings)
            case (_, nil): tls = .disable
            }
            configuration = PostgresClient.Configuration(
                host: location.host, port: location.port, username: location.user, password: location.password,
                database: location.database, tls: tls)
        }
        configuration.options.maximumConnections = location.maxConnections
        configuration.options.connectionIdleTimeout = .seconds(location.idleSeconds)
        configuration.options.keepAliveBehavior = nil
        configuration.options.connectTimeout = .seconds(Int64(location.connectTimeoutSeconds))
        configuration.options.additionalStartupParameters = startupParameters(location)
        return configuration
    }

    /// A schema of its own is every connection's search path (the migrations create it), so no statement names it.
    private static func startupParameters(_ location: PostgresLocation) -> [(String, String)] {
        location.schema.map { [("search_path", $0)] } ?? []
    }
}

/// The database could not be opened: nothing answered, or the server refused (password, database name).
public struct PostgresUnavailable: Error, CustomStringConvertible {
    public let location: String
    public let reason: String

    public var description: String { "cannot open the PostgreSQL database \(location): \(reason)" }
}

struct TimedOut: Error {}

/// SQLSTATE 53300, too_many_connections: the server's `max_connections` or a role's `CONNECTION LIMIT` is reached.
let tooManyConnections = "53300"

/// `body`'s result, or `TimedOut` once `limit` has passed: `body` is then cancelled and left to end by itself (a
/// statement the server never answers ends when its connection is closed), so the caller never waits past `limit`.
/// A result that arrives after the limit goes to `abandoned` (a connection opened too late is closed there).
func within<T: Sendable>(
    _ limit: Duration, abandoned: (@Sendable (T) async -> Void)? = nil, _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    let work = Task { try await body() }
    let answered = FirstAnswer()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
            let timer = Task {
                try await Task.sleep(for: limit)
                guard answered.claim() else { return }
                work.cancel()
                continuation.resume(throwing: TimedOut())
            }
            Task {
                let outcome = await work.result
                timer.cancel()
                if answered.claim() {
                    continuation.resume(with: outcome)
                } else if case .success(let late) = outcome {
                    await abandoned?(late)  // the caller timed out: what came too late is handed back
                }
            }
        }
    } onCancel: {
        work.cancel()
    }
}

/// True for the first caller only.
final class FirstAnswer: Sendable {
    private let taken = Mutex(false)

    func claim() -> Bool {
        taken.withLock { taken in
            defer { taken = true }
            return !taken
        }
    }
}
