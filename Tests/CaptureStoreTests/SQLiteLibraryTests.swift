import Foundation
import GRDB
import Testing

@testable import CaptureStore

/// SQLite counts no allocations (under its process-wide mutex) in a process whose first connection
/// `CaptureDatabase.open` made. In this test process another test may open GRDB first; then the flag must say so,
/// and SQLite's own count must agree with the flag either way.
@Suite struct SQLiteLibraryTests {
    @Test func memoryStatisticsAreOffWhenConfigured() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("library-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm", "-changes"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let pool = try CaptureDatabase.open(path: path)
        let before = SQLiteLibrary.countedMemory
        // 200 KB written and read back: the connections' page caches grow by it, which SQLite counts when it counts.
        try await pool.write { db in
            try db.execute(sql: "CREATE TABLE filler(content BLOB); INSERT INTO filler VALUES (randomblob(200000))")
        }
        let after = try await pool.read { db in
            _ = try Data.fetchOne(db, sql: "SELECT content FROM filler")
            return SQLiteLibrary.countedMemory
        }
        if SQLiteLibrary.configured {
            // Nothing moves the count any more (other tests' connections included).
            #expect(after == before)
        } else {
            // Counting: the open pool's connections alone hold memory.
            #expect(after > 0)
        }
        try pool.close()
    }
}
