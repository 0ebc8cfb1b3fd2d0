import Foundation
import GRDB
import Testing

@testable import CaptureStore

/// `StoredDate` must write exactly what GRDB writes for a `Date`: the stored text is compared in SQL and read back by
/// GRDB, whichever of the two wrote it.
@Suite struct StoredDateTests {
    static func grdbText(_ date: Date) -> String? { String.fromDatabaseValue(date.databaseValue) }

    @Test func writesWhatGRDBWritesForAnyDate() {
        var generator = SystemRandomNumberGenerator()
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
