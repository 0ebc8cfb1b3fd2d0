import CaptureCore
import Foundation
import GRDB

/// Opens the SQLite file (WAL, shared safely between the service and capturectl) and migrates it.
public enum CaptureDatabase {
    /// A `DatabasePool` on `path`, parent directory created, migrations applied.
    public static func open(path: String) throws -> DatabasePool {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var configuration = Configuration()
        // The CLI and the service write the same file; wait for the other's lock instead of failing.
        configuration.busyMode = .timeout(10)
        configuration.foreignKeysEnabled = true
        configuration.prepareDatabase { db in
            // An acknowledged write survives a crash of the process and of the machine.
            try db.execute(sql: "PRAGMA synchronous = FULL")
            // Freed content (a message body once delivered, a deleted user) is overwritten, not left in free space.
            try db.execute(sql: "PRAGMA secure_delete = ON")
        }
        let pool = try DatabasePool(path: path, configuration: configuration)
        try Migrations.migrator.migrate(pool)
        return pool
    }

    /// The repositories over one database.
    public static func repositories(_ writer: any DatabaseWriter) -> Repositories {
        Repositories(
            users: SQLiteUserRepository(writer: writer),
            tokens: SQLiteTokenRepository(writer: writer),
            clients: SQLiteClientRepository(writer: writer),
            throttle: SQLiteThrottleRepository(writer: writer),
            codes: SQLiteCodeRepository(writer: writer),
            outbox: SQLiteOutboxRepository(writer: writer),
            socialLogins: SQLiteSocialLoginRepository(writer: writer),
            identities: SQLiteIdentityRepository(writer: writer),
            audit: SQLiteAuditRepository(writer: writer),
            adminKeys: SQLiteAdminKeyRepository(writer: writer),
            isReady: {
                (try? await writer.read { db in try Int.fetchOne(db, sql: "SELECT 1") }) == 1
            })
    }
}
