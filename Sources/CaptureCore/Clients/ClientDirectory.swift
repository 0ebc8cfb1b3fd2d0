import Synchronization

/// Clients as the store last had them, so a token check or a page does not read and decode its client's row each
/// time. Every use names the store's clients version (`ClientRepository.version`, read in the same transaction as
/// the token where there is one): a different version drops every entry, so a client changed by this process,
/// `capturectl` or another instance is read afresh on the very next request. Bounded: a full directory starts over.
public final class ClientDirectory: Sendable {
    public static let capacity = 4096
    private let state = Mutex<(version: Int64, clients: [String: Client])>((-1, [:]))

    public init() {}

    /// The client as of `version`: from the directory, else from `load` (kept when found).
    public func client(_ id: String, version: Int64, load: () async throws -> Client?) async throws -> Client? {
        if let known = state.withLock({ $0.version == version ? $0.clients[id] : nil }) { return known }
        // Read after `version` was, so never older than it; a newer row is dropped with the next version.
        guard let client = try await load() else { return nil }
        state.withLock { state in
            if state.version != version || state.clients.count >= Self.capacity { state = (version, [:]) }
            state.clients[id] = client
        }
        return client
    }
}
