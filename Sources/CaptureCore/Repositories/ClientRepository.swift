/// Storage of clients. `upsert` replaces a client with the same id.
public protocol ClientRepository: Sendable {
    func upsert(_ client: Client) async throws
    func insert(_ client: Client) async throws
    func find(id: String) async throws -> Client?
    func list() async throws -> [Client]
    @discardableResult func delete(id: String) async throws -> Bool
    /// A number that changes whenever any client is added, changed or removed, by any process on the store.
    func version() async throws -> Int64
}
