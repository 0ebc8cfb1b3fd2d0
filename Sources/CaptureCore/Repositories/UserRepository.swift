/// Storage of users. Implementations throw `CaptureError.emailAddressInUse` on a duplicate address.
public protocol UserRepository: Sendable {
    /// Stores a new record and returns it as stored (with its `number`).
    @discardableResult func insert(_ user: User) async throws -> User
    /// Stores a changed record; a record whose profile changed (`uniqueValues` set) also claims its unique values.
    func update(_ user: User) async throws
    func find(id: String) async throws -> User?
    func find(email: String) async throws -> User?
    func list(limit: Int, offset: Int) async throws -> [User]
    /// Deletes the user and, in the same transaction, every token of theirs.
    @discardableResult func delete(id: String) async throws -> Bool
}
