/// Clients as the store last had them, so a token check or a page does not read and decode its client's row each
/// time. Every use names the store's clients version (`ClientRepository.version`, read in the same transaction as
/// the token where there is one), so a client changed by this process, `capturectl` or another instance is read
/// afresh on the very next request (`VersionedCache`).
public final class ClientDirectory: Sendable {
    public static let capacity = 4096
    private let clients = VersionedCache<String, Client>(capacity: capacity)
    private let origins = VersionedCache<String, Set<URLOrigin>>(capacity: capacity)

    public init() {}

    /// The client as of `version`: from the directory, else from `load` (kept when found).
    public func client(_ id: String, version: Int64, load: () async throws -> Client?) async throws -> Client? {
        if let known = clients.value(id, version: version) { return known }
        guard let client = try await load() else { return nil }
        clients.keep(client, for: id, version: version)
        return client
    }

    /// Where the client's pages and apps run (`Client.origins(publicOrigin:)`), worked out once per clients version:
    /// parsing each URI costs more than the token check that `/verify` makes.
    public func origins(of client: Client, version: Int64, publicOrigin: String) -> Set<URLOrigin> {
        if let known = origins.value(client.clientID, version: version) { return known }
        let found = client.origins(publicOrigin: publicOrigin)
        origins.keep(found, for: client.clientID, version: version)
        return found
    }
}
