import Foundation

/// One stored value as `capturectl db copy` carries it from one backend to another: typed, so each backend writes it
/// in its own way (a date as SQLite's text or PostgreSQL's `timestamptz`, a list as JSON text or `text[]`).
public enum StoredValue: Sendable, Equatable {
    case null
    case text(String)
    case integer(Int64)
    case real(Double)
    case bool(Bool)
    case date(Date)
    case texts([String])
}

/// A table as the copy sees it: its columns by their SQLite names (PostgreSQL's are the same in snake_case) and
/// kinds, and the columns rows are ordered by.
public struct StoredTable: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case text, integer, real, bool, date, texts
    }

    public let name: String
    public let columns: [(name: String, kind: Kind)]
    public let orderedBy: [String]
    /// Its `id` is given by the database (an identity or rowid); the copy keeps the numbers.
    public let hasGeneratedID: Bool

    public init(_ name: String, orderedBy: [String], generatedID: Bool = false, _ columns: [(String, Kind)]) {
        self.name = name
        self.columns = columns.map { (name: $0.0, kind: $0.1) }
        self.orderedBy = orderedBy
        self.hasGeneratedID = generatedID
    }

    public static func == (lhs: StoredTable, rhs: StoredTable) -> Bool {
        lhs.name == rhs.name && lhs.columns.map(\.name) == rhs.columns.map(\.name) && lhs.orderedBy == rhs.orderedBy
    }
}

/// Whole rows of a store, for `capturectl db copy`: read a page at a time in a stable order, written as they were.
public protocol RowStore: Sendable {
    func count(_ table: StoredTable) async throws -> Int
    /// Rows `offset..<offset+limit` in `table.orderedBy` order, values in `table.columns` order.
    func rows(of table: StoredTable, offset: Int, limit: Int) async throws -> [[StoredValue]]
    /// Inserts rows as they are (generated ids included), in one transaction.
    func insert(_ rows: [[StoredValue]], into table: StoredTable) async throws
    /// After a copy: whatever hands out the next generated id continues after the copied ones.
    func finishCopy(_ tables: [StoredTable]) async throws
}
