import Foundation
import GRDB
import Testing

@testable import CaptureStore

/// SQLite counts no allocations (under its process-wide mutex) in a process whose first connection
/// `CaptureDatabase.open` made. In this test process any other test may have opened GRDB first, so each case runs in
/// a process of its own (an exit test), where what opens SQLite first is the case's own choice: the setting is
/// checked on every run, whatever the other tests did.
@Suite struct SQLiteLibraryTests {
    /// The store opens first: the settings take effect, and nothing moves SQLite's count any more.
    @Test func memoryStatisticsAreOffWhenTheStoreOpensSQLiteFirst() async {
        let outcome = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            let path = SQLiteLibraryTests.newPath()
            defer { SQLiteLibraryTests.remove(path) }
            let pool = try CaptureDatabase.open(path: path)
            guard SQLiteLibrary.configured else {
                SQLiteLibraryTests.fail("the settings did not take effect in a fresh process")
            }
            let (before, after) = try await SQLiteLibraryTests.countAround200KB(pool)
            guard after == before else {
                SQLiteLibraryTests.fail("SQLite still counts: \(before) bytes before, \(after) after")
            }
            try pool.close()
        }
        Self.recordWhatItSaid(outcome)
    }

    /// The control: GRDB opens SQLite first (the settings can no longer be made), and the same work moves the count.
    /// Without it, a count that never moves for another reason would pass the test above.
    @Test func memoryIsCountedWhenSomethingElseOpensSQLiteFirst() async {
        let outcome = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            let path = SQLiteLibraryTests.newPath()
            defer { SQLiteLibraryTests.remove(path) }
            try DatabaseQueue().close()
            let pool = try CaptureDatabase.open(path: path)
            guard !SQLiteLibrary.configured else {
                SQLiteLibraryTests.fail("the settings took effect after SQLite was in use")
            }
            let (before, after) = try await SQLiteLibraryTests.countAround200KB(pool)
            guard after > before else {
                SQLiteLibraryTests.fail("SQLite counted nothing: \(before) bytes before, \(after) after")
            }
            try pool.close()
        }
        Self.recordWhatItSaid(outcome)
    }

    /// SQLite's count before and after 200 KB are written and read back (the connections' page caches grow by it,
    /// which SQLite counts when it counts).
    static func countAround200KB(_ pool: DatabasePool) async throws -> (before: Int64, after: Int64) {
        let before = SQLiteLibrary.countedMemory
        try await pool.write { db in
            try db.execute(sql: "CREATE TABLE filler(content BLOB); INSERT INTO filler VALUES (randomblob(200000))")
        }
        let after = try await pool.read { db in
            _ = try Data.fetchOne(db, sql: "SELECT content FROM filler")
            return SQLiteLibrary.countedMemory
        }
        return (before, after)
    }

    static func newPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("library-\(UUID().uuidString).sqlite").path
    }

    static func remove(_ path: String) {
        for suffix in ["", "-wal", "-shm", "-changes"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    /// Ends the exit test's process with a failure, saying why on its standard error (which the parent prints).
    static func fail(_ reason: String) -> Never {
        FileHandle.standardError.write(Data((reason + "\n").utf8))
        exit(1)
    }

    static func recordWhatItSaid(_ outcome: ExitTest.Result?) {
        guard let outcome, outcome.exitStatus != .exitCode(EXIT_SUCCESS) else { return }
        Issue.record("the process said: \(String(decoding: outcome.standardErrorContent, as: UTF8.self))")
    }
}
