import CaptureCache
import CaptureCore
import Foundation
import GRDB

/// Opens the SQLite file (WAL, shared safely between the service and capturectl) and migrates it.
public enum CaptureDatabase {
    /// A reading connection's page cache (SQLite's `cache_size`, negative: KiB), 1 MiB instead of SQLite's 2: reads
    /// are point lookups at random in a file far larger than any cache, so what stays is the B-trees' inner pages
    /// (a few hundred KiB at 100k users); the memory goes to the token checks kept in memory.
    static let readerCacheKiB = -1024

    /// A `DatabasePool` on `path`, parent directory created, migrations applied. With a `checkpointer` (the service),
    /// the writer leaves WAL checkpoints to it, off the path of every write; close it before the pool.
    public static func open(path: String, checkpointer: WALCheckpointer? = nil) throws -> DatabasePool {
        _ = SQLiteLibrary.configured
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var configuration = Configuration()
        // The CLI and the service write the same file; wait for the other's lock instead of failing.
        configuration.busyMode = .timeout(10)
        configuration.foreignKeysEnabled = true
        // Every change to tokens, users and clients is stamped for the token-check caches of every process.
        let stamps = try ChangeStamps.forDatabase(at: path)
        configuration.prepareDatabase { db in
            db.add(transactionObserver: ChangeRecorder(stamps: stamps), extent: .databaseLifetime)
            // An acknowledged write survives a crash of the process and of the machine.
            try db.execute(sql: "PRAGMA synchronous = FULL")
            // Freed content (a message body once delivered, a deleted user) is overwritten, not left in free space.
            try db.execute(sql: "PRAGMA secure_delete = ON")
            if db.configuration.readonly {
                try db.execute(sql: "PRAGMA cache_size = \(readerCacheKiB)")
            } else {
                checkpointer?.install(on: db)
            }
        }
        let pool = try DatabasePool(path: path, configuration: configuration)
        try refuseNewerSchema(pool, path: path)
        try Migrations.migrator.migrate(pool)
        return pool
    }

    /// A file a newer build migrated holds tables and rows this build would misread or damage: stop before touching it.
    static func refuseNewerSchema(_ pool: DatabasePool, path: String) throws {
        let migrator = Migrations.migrator
        let unknown = try pool.read { db in try migrator.appliedIdentifiers(db) }.subtracting(migrator.migrations)
        guard unknown.isEmpty else {
            try? pool.close()
            throw DatabaseTooNew(database: path, unknownMigrations: unknown.sorted())
        }
    }

    /// The repositories over one database; each call's latency goes to `metrics`. Over a file (a `DatabasePool`),
    /// point lookups read through `PointReaders` of their own. Token redemptions share one `GroupCommit`.
    public static func repositories(_ writer: any DatabaseWriter, metrics: CaptureMetrics = .facade) -> Repositories {
        repositories(writer, metrics: metrics, pointReaders: (writer as? DatabasePool).map { PointReaders(path: $0.path) })
    }

    /// The repositories over the file `pool` opens, and how to close them: the point readers, the background
    /// `checkpointer` the pool was opened with (if any), a checkpoint, the pool.
    /// The checkpoint copies what the WAL holds into the file (SQLite would at the last connection's close, but GRDB
    /// closes its writer before its read-only readers, which cannot), so once no other process writes, a copy of the
    /// file alone is whole, and the emptied log holds nothing of an erased person.
    public static func repositoriesClosing(
        _ pool: DatabasePool, metrics: CaptureMetrics = .facade, checkpointer: WALCheckpointer? = nil
    ) -> (repositories: Repositories, close: @Sendable () throws -> Void) {
        let pointReaders = PointReaders(path: pool.path)
        let repositories = repositories(pool, metrics: metrics, pointReaders: pointReaders)
        return (
            repositories,
            {
                pointReaders.close()
                checkpointer?.close()
                // Truncating, so the log keeps no page images from before an erasure; passive when a reader in
                // another process holds it up, which never waits.
                _ = try? pool.writeWithoutTransaction { db in
                    if (try? db.checkpoint(.truncate)) == nil { _ = try db.checkpoint(.passive) }
                }
                try pool.close()
            }
        )
    }

    private static func repositories(
        _ writer: any DatabaseWriter, metrics: CaptureMetrics, pointReaders: PointReaders?
    ) -> Repositories {
        let cache = (writer as? DatabasePool).flatMap { pool in
            (try? ChangeStamps.forDatabase(at: pool.path)).map { TokenCheckCache(stamps: $0) }
        }
        let groupCommit = GroupCommit(writer: writer)
        func named(_ repository: String) -> MeteredDatabase {
            MeteredDatabase(
                writer: writer, repository: repository, metrics: metrics, pointReaders: pointReaders,
                groupCommit: groupCommit)
        }
        return Repositories(
            users: SQLiteUserRepository(writer: named("users")),
            tokens: SQLiteTokenRepository(writer: named("tokens")),
            checks: SQLiteTokenChecks(writer: named("tokens")).cached(by: cache, metrics: metrics),
            records: SQLiteRecordReads(writer: named("users")),
            clients: SQLiteClientRepository(writer: named("clients")),
            clientSettings: SQLiteClientSettingsRepository(writer: named("client_settings")),
            throttle: SQLiteThrottleRepository(writer: named("throttle")),
            codes: SQLiteCodeRepository(writer: named("codes")),
            outbox: SQLiteOutboxRepository(writer: named("outbox")),
            socialLogins: SQLiteSocialLoginRepository(writer: named("social_logins")),
            identities: SQLiteIdentityRepository(writer: named("identities")),
            providerRevocations: SQLiteProviderRevocationRepository(writer: named("provider_revocations")),
            audit: SQLiteAuditRepository(writer: named("audit_log")),
            adminKeys: SQLiteAdminKeyRepository(writer: named("admin_keys")),
            passkeys: SQLitePasskeyRepository(writer: named("passkeys")),
            ceremonies: SQLiteCeremonyRepository(writer: named("ceremonies")),
            secondFactors: SQLiteSecondFactorRepository(writer: named("second_factors")),
            oidcGrants: SQLiteOIDCGrantRepository(writer: named("oidc_grants")),
            signingKeys: SQLiteSigningKeyRepository(writer: named("signing_keys")),
            webhooks: SQLiteWebhookRepository(writer: named("webhooks")),
            isReady: {
                (try? await writer.read { db in try Int.fetchOne(db, sql: "SELECT 1") }) == 1
            })
    }
}
