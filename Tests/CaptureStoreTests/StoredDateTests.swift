import CaptureTestSupport
import Foundation
import GRDB
import Testing

@testable import CaptureStore

/// `StoredDate` must write exactly what GRDB writes for a `Date`: the stored text is compared in SQL and read back by
/// GRDB, whichever of the two wrote it.
@Suite struct StoredDateTests {
    static func grdbText(_ date: Date) -> String? { String.fromDatabaseValue(date.databaseValue) }

    @Test func writesWhatGRDBWritesForAnyDate() {
        var generator = SeededGenerator()
        // From 1900 to 2300, at any fraction of a second.
        for _ in 0..<20_000 {
            let date = Date(timeIntervalSince1970: Double.random(in: -2_208_988_800...10_413_792_000, using: &generator))
            #expect(StoredDate.text(date) == Self.grdbText(date), "\(date.timeIntervalSince1970)")
        }
    }

    @Test func writesWhatGRDBWritesAtTheEdges() {
        let edges: [TimeInterval] = [
            0, -0.0005, -0.001, 0.0005, 0.9995, 0.99949, 0.999999, 59.9999, 86_399.9999, 86_400, 951_782_400,  // 2000-02-29
            4_107_542_399.9999, 1_795_000_000.123, 1_795_000_000.1239, 1_795_000_000.9999999, -1, -86_400.5,
        ]
        for seconds in edges {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(StoredDate.text(date) == Self.grdbText(date), "\(seconds)")
        }
        #expect(StoredDate.text(Date(timeIntervalSince1970: 951_782_400.25)) == "2000-02-29 00:00:00.250")
        #expect(StoredDate.text(nil as Date?) == nil)
    }

    @Test func readsBackAsTheDateGRDBWouldHaveStored() throws {
        let queue = try DatabaseQueue()
        let date = Date(timeIntervalSince1970: 1_795_000_000.123)
        let read = try queue.read { db in try Date.fetchOne(db, sql: "SELECT ?", arguments: [StoredDate.text(date)]) }
        let expected = try queue.read { db in try Date.fetchOne(db, sql: "SELECT ?", arguments: [date]) }
        #expect(read == expected && read != nil)
    }
}

/// `StoredDate.date` must read back exactly the `Date` GRDB reads from the same text: records read through it are
/// compared with records read by GRDB.
@Suite struct StoredDateReadingTests {
    static func grdbDate(_ text: String) -> Date? { Date.fromDatabaseValue(text.databaseValue) }

    static func read(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { StoredDate.date($0) }
    }

    @Test func readsWhatGRDBReadsForAnyStoredDate() {
        var generator = SeededGenerator()
        let edges: [TimeInterval] = [0, -0.001, 0.999, 86_399.999, 951_782_400, 4_107_542_399.999, -86_400.5, -2_208_988_800]
        let dates = edges + (0..<20_000).map { _ in Double.random(in: -2_208_988_800...10_413_792_000, using: &generator) }
        // Near the reference date, where adding up in another order than Foundation's gave another `Double`.
        let nearReference = [
            "2000-12-31 23:17:40.257", "2001-01-23 23:50:18.353", "2000-12-30 12:42:26.847", "2000-12-25 23:03:45.432",
            "2001-01-06 19:08:53.138",
        ]
        for text in nearReference { #expect(Self.read(text) == Self.grdbDate(text), "\(text)") }
        for seconds in dates + (0..<20_000).map({ _ in 978_307_200 + Double.random(in: -5e6...5e6, using: &generator) }) {
            let text = StoredDate.text(Date(timeIntervalSince1970: seconds))
            let read = Self.read(text)
            #expect(read != nil && read == Self.grdbDate(text), "\(text)")
        }
    }

    @Test func leavesEveryOtherTextToGRDB() {
        for text in [
            "2026-11-25 10:00:00", "2026-11-25T10:00:00.000", "2026-13-01 00:00:00.000", "2026-11-25 24:00:00.000",
            "2026-11-25 10:00:00.0001", "2026-11-2a 10:00:00.000", "", "2026-11-25 10:60:00.000",
        ] {
            #expect(Self.read(text) == nil, "\(text)")
        }
    }

    @Test func aColumnReadsAsGRDBReadsIt() throws {
        let queue = try DatabaseQueue()
        let texts = ["2026-11-25 10:00:00.123", "2026-11-25T10:00:00Z", "2026-11-25", "2026-11-25 10:00"]
        for text in texts {
            let (fast, grdb) = try queue.read { db in
                let row = try Row.fetchOne(db, sql: "SELECT ?, ?", arguments: [text, text])!
                return ((row[0] as StoredInstant?)?.date, row[1] as Date?)
            }
            #expect(fast != nil && fast == grdb, "\(text)")
        }
        let null = try queue.read { db in try Row.fetchOne(db, sql: "SELECT NULL")![0] as StoredInstant? }
        #expect(null == nil)
    }
}
