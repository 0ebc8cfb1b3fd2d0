import Foundation
import GRDB

/// A table's row type (GRDB's advice: one record type per table): its columns, and the mapping to and from the domain
/// value it stores. Core's values know nothing of GRDB; repositories read and write rows and hand out values.
protocol StoredRow: FetchableRecord {
    associatedtype Value
    var value: Value { get }
    init(_ value: Value)
}

extension FetchRequest where RowDecoder: StoredRow {
    /// The domain values of the rows fetched.
    func values(_ db: Database) throws -> [RowDecoder.Value] {
        try fetchAll(db).map(\.value)
    }

    func value(_ db: Database) throws -> RowDecoder.Value? {
        try fetchOne(db)?.value
    }
}

/// A row whose id the database gives (an `INTEGER PRIMARY KEY`): inserted, it comes back with it.
protocol GeneratedIDRow: StoredRow, MutablePersistableRecord {
    var id: Int64? { get set }
}

extension GeneratedIDRow {
    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }

    /// Inserts `value`'s row; returns the value with the id the database gave it.
    @discardableResult static func insert(_ value: Value, in db: Database) throws -> Value {
        var row = Self(value)
        try row.insert(db)
        return row.value
    }
}

/// A list of texts as a column keeps it: a JSON array, as GRDB stores a `Codable` record's lists. Text that is not
/// one reads as an empty list.
enum StoredList {
    static func text(_ list: [String]) -> String {
        String(decoding: (try? JSONEncoder().encode(list)) ?? Data("[]".utf8), as: UTF8.self)
    }

    static func list(_ text: String?) -> [String] {
        text.flatMap { try? JSONDecoder().decode([String].self, from: Data($0.utf8)) } ?? []
    }
}

/// Bytes as a column keeps them: base64url text, which both backends and `capturectl db copy` carry as text.
enum StoredBytes {
    static func text(_ bytes: [UInt8]) -> String {
        Data(bytes).base64URLEncoded()
    }

    static func bytes(_ text: String) -> [UInt8] {
        Data(base64URLEncoded: text).map { Array($0) } ?? []
    }
}

extension DatabaseError {
    var isUniqueViolation: Bool { extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE }
}
