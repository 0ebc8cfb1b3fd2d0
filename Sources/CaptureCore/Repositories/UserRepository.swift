/// Storage of users. Implementations throw `CaptureError.emailAddressInUse` on a duplicate address.
public protocol UserRepository: Sendable {
    func insert(_ user: User) async throws
    func update(_ user: User) async throws
    func find(id: String) async throws -> User?
    func find(email: String) async throws -> User?
    func list(limit: Int, offset: Int) async throws -> [User]
    /// Deletes the user and, in the same transaction, every token of theirs.
    @discardableResult func delete(id: String) async throws -> Bool
}
