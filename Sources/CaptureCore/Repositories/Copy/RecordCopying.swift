/// A store's records for `capturectl db copy` (`StoreCopy`), as domain values: each backend reads and writes them
/// through its own rows and mapping. Not a feature's repository: nothing but the copy reads whole tables.
public protocol RecordCopying: Sendable {
    /// How many records `table` holds.
    func count(_ table: CopiedTable) async throws -> Int
    /// Records `offset..<offset+limit` of `table`, in an order of its key that stays put while nothing writes.
    func page(of table: CopiedTable, offset: Int, limit: Int) async throws -> CopiedPage
    /// Writes the records as they are (generated ids included), in one transaction.
    func insert(_ page: CopiedPage) async throws
    /// After a copy: whatever hands out the next generated id continues after the copied ones.
    func finishCopy() async throws
}
