import Foundation

/// Storage of users. Implementations throw `CaptureError.emailAddressInUse` on a duplicate address.
public protocol UserRepository: Sendable {
    /// Stores a new record and returns it as stored (with its `number`); with `identity`, links that provider
    /// account in the same transaction, so a social registration never leaves a user without its link.
    @discardableResult func insert(_ user: User, linking identity: LinkedIdentity?) async throws -> User
    /// Stores imported records in one transaction, each on its own: a record that collides with a stored one (or
    /// an earlier one of the batch) is left out whole and the others are stored. A record keeps its `number` when
    /// no other holds it, else gets the next free one. One outcome per record, in order.
    func importBatch(_ users: [User]) async throws -> [Result<User, ImportConflict>]
    /// Stores a changed record; a record whose profile changed (`uniqueValues` set) also claims its unique values.
    func update(_ user: User) async throws
    func find(id: String) async throws -> User?
    func find(email: String) async throws -> User?
    /// By Janrain's numeric `id`.
    func find(number: Int64) async throws -> User?
    /// The record holding `text` (`EntityDocument.uniqueText`) in the unique attribute at dot path `attribute`.
    func find(unique attribute: String, text: String) async throws -> User?
    /// Users in order of creation; with `search`, only those whose address or display name contains it
    /// (case-insensitive).
    func list(search: String?, page: Page) async throws -> [User]
    /// `entity.find`: the records `query.filter` matches (all without one), in `query.order`, from `firstResult`, at
    /// most `maxResults`. The filter runs in the database (each backend compiles it to parameterised SQL); past
    /// `query.timeout` the query is stopped and this throws `EntityQuery.timedOut` (Janrain's 200 on `timeout`).
    func find(_ query: EntityQuery) async throws -> [User]
    /// `entity.count`: how many records `filter` matches (all without one), stopped like `find` after `timeout`.
    func count(_ filter: EntityFilter?, timeout: Duration) async throws -> Int
    /// Creates the indexes `entity.find` uses for the schema's unique and `indexed` profile attributes
    /// (`EntitySchema.indexedFilterFields`), each on exactly the expression the backend's filters compile to, and drops
    /// those of attributes no longer marked. Idempotent; run at startup, after the schema is loaded.
    func prepareFilterIndexes(for schema: EntitySchema) async throws
    /// Deletes the user and, in the same transaction, every token of theirs.
    @discardableResult func delete(id: String) async throws -> Bool
    /// Accounts their owners deleted at or before `cutoff`, oldest request first.
    func deletionsRequested(before cutoff: Date, limit: Int) async throws -> [User]
    /// Erases the user in one transaction: the record with every row that names it (as `delete`), the messages
    /// sent about it, and in the audit log its id and address replaced by `pseudonym` with the rows' details
    /// dropped. False when there was no such user.
    @discardableResult func erase(_ user: User, pseudonym: String) async throws -> Bool
    /// Makes what erasures removed unrecoverable from the storage's files as far as the storage can (SQLite: every
    /// file of the database; PostgreSQL: see docs/privacy.md, "Erasure on disk"). Called after an erasure or a batch.
    func scrubErased() async throws
}

/// Why storage left an imported record out: something another record already holds.
public enum ImportConflict: Error, Sendable, Equatable {
    /// The `uuid`.
    case id
    case email
    /// The value of a unique schema attribute (its dot path).
    case unique(String)
}

extension UserRepository {
    @discardableResult public func insert(_ user: User) async throws -> User {
        try await insert(user, linking: nil)
    }
}
