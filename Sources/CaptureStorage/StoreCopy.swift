import CaptureCore

/// `capturectl db copy`: every record of one store into another, empty one, of either backend (SQLite → PostgreSQL
/// to move to several instances, PostgreSQL → SQLite for a local copy). Tables go parents first (`CopiedTable`), a
/// page at a time, as domain values each backend reads and writes through its own mapping; ids keep their numbers.
public enum StoreCopy {
    public static let pageSize = 1000

    /// A table's name and how many records were copied.
    public typealias Report = [(table: String, rows: Int)]

    /// Copies every table; refuses a target that holds any record, before writing anything.
    public static func copy(from source: any RecordCopying, to target: any RecordCopying) async throws -> Report {
        for table in CopiedTable.allCases where try await target.count(table) > 0 {
            throw CaptureError.notPermitted("the target database is not empty (its \(table.name) table has rows)")
        }
        var report: Report = []
        for table in CopiedTable.allCases {
            var copied = 0
            while true {
                let page = try await source.page(of: table, offset: copied, limit: pageSize)
                if page.count == 0 { break }
                try await target.insert(page)
                copied += page.count
                if page.count < pageSize { break }
            }
            report.append((table.name, copied))
        }
        try await target.finishCopy()
        return report
    }
}
