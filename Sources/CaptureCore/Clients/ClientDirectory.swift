/// Clients as the store last had them, so a token check or a page does not read and decode its client's row each
/// time. Every use names the store's clients version (`ClientRepository.version`, read in the same transaction as
/// the token where there is one), so a client changed by this process, `capturectl` or another instance is read
/// afresh on the very next request (`VersionedCache`).
public final class ClientDirectory: Sendable {
    public static let capacity = 4096
    private let clients = VersionedCache<String, Client>(capacity: capacity)

    public init() {}

    /// The client as of `version`: from the directory, else from `load` (kept when found).
    public func client(_ id: String, version: Int64, load: () async throws -> Client?) async throws -> Client? {
        if let known = clients.value(id, version: version) { return known }
        guard let client = try await load() else { return nil }
        clients.keep(client, for: id, version: version)
        return client
    }
}
