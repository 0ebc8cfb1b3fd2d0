import Synchronization

/// Values derived from rows that a store's change counter covers (`ClientRepository.version`), kept under the
/// version they were read at: a lookup at any other version finds nothing and the first store at a new version
/// drops them all, so a change made by this process, `capturectl` or another instance is seen on the very next
/// request. Bounded: a full cache starts over.
public final class VersionedCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    public let capacity: Int
    private let state = Mutex<(version: Int64, values: [Key: Value])>((-1, [:]))

    public init(capacity: Int) {
        self.capacity = capacity
    }

    public func value(_ key: Key, version: Int64) -> Value? {
        state.withLock { $0.version == version ? $0.values[key] : nil }
    }

    /// Keeps `value`, read after `version` was, so never older than it; a newer one is dropped with the next version.
    public func keep(_ value: Value, for key: Key, version: Int64) {
        state.withLock { state in
            if state.version != version || state.values.count >= capacity { state = (version, [:]) }
            state.values[key] = value
        }
    }
}
