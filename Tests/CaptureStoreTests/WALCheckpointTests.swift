import Foundation
import GRDB
import Testing

@testable import CaptureStore

/// The service's writer leaves WAL checkpoints to a connection of their own (`WALCheckpointer`); capturectl's keeps
/// SQLite's automatic checkpoint. Either way the log's pages reach the database file.
@Suite struct WALCheckpointTests {
    @Test func theServicesWriterLeavesCheckpointsToTheBackgroundAndTheLogStillReachesTheFile() async throws {
        let path = Self.temporaryPath("checkpoint")
        defer { Self.remove(path) }
        let checkpointer = WALCheckpointer(path: path)
        let pool = try CaptureDatabase.open(path: path, checkpointer: checkpointer)
        // The hook took the automatic checkpoint's place on the writer (SQLite reports 0 for it then).
        #expect(try await pool.write { db in try Int.fetchOne(db, sql: "PRAGMA wal_autocheckpoint") } == 0)
        // The migrations' pages into the file first (the writer may checkpoint when asked to), so that the log holds
        // the filler's pages alone.
        _ = try await pool.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
        let before = try Self.fileSize(path)

        // About 1,500 pages (4 KiB each) into the log, in 30 commits: past the 1,000-page threshold, far below the
        // 16,000 pages at which the writer would checkpoint itself. Only the background connection copies them.
        try await pool.write { db in try db.execute(sql: "CREATE TABLE filler (bytes BLOB NOT NULL)") }
        for _ in 0..<30 {
            try await pool.write { db in
                for _ in 0..<50 { try db.execute(sql: "INSERT INTO filler VALUES (randomblob(4000))") }
            }
        }
        // The first commit past the threshold asks for a checkpoint, which copies what the log holds when it starts:
        // at least those 1,000 pages (about 50 a commit, a few of them written again by each). The rest waits in the
        // log until it reaches the threshold again, as with SQLite's own checkpoint: once a checkpoint has copied
        // everything, the next write starts the log over.
        let copied = before + 800 * 4096
        let deadline = ContinuousClock.now + .seconds(30)
        while try Self.fileSize(path) < copied, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(try Self.fileSize(path) >= copied, "the database file did not grow: nothing checkpointed the log")
        // Nothing was lost on the way: a new connection reads every row from the file and the log.
        let reader = try DatabaseQueue(path: path)
        #expect(try await reader.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM filler") } == 1500)
        try reader.close()
        checkpointer.close()
        try pool.close()
    }

    /// Past `writerLimit` pages the writer checkpoints by itself, before its commit returns, as SQLite's automatic
    /// checkpoint would: here the limit is the threshold, so the background never gets the chance.
    @Test func pastTheWritersLimitTheWriterCheckpointsItself() async throws {
        let path = Self.temporaryPath("limit")
        defer { Self.remove(path) }
        let checkpointer = WALCheckpointer(path: path, threshold: 200, writerLimit: 200)
        var configuration = Configuration()
        configuration.prepareDatabase { db in checkpointer.install(on: db) }
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        try await queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "CREATE TABLE filler (bytes BLOB NOT NULL)")
        }
        let before = try Self.fileSize(path)
        try await queue.write { db in
            for _ in 0..<300 { try db.execute(sql: "INSERT INTO filler VALUES (randomblob(4000))") }
        }
        #expect(try Self.fileSize(path) >= before + 250 * 4096)
        try queue.close()
    }

    @Test func capturectlsWriterKeepsSQLitesAutomaticCheckpoint() async throws {
        let path = Self.temporaryPath("automatic")
        defer { Self.remove(path) }
        let pool = try CaptureDatabase.open(path: path)
        #expect(try await pool.write { db in try Int.fetchOne(db, sql: "PRAGMA wal_autocheckpoint") } == 1000)
        try pool.close()
    }

    private static func temporaryPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString).sqlite").path
    }

    private static func remove(_ path: String) {
        for suffix in ["", "-wal", "-shm", "-changes"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    private static func fileSize(_ path: String) throws -> Int {
        try (FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
    }
}
