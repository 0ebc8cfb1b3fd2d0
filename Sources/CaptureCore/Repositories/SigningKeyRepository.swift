import Foundation

/// The service's signing keys (`SigningKey`), shared by every instance on one database. Both writes decide in the
/// database, so instances starting or rotating at once agree on one key per algorithm and generation.
public protocol SigningKeyRepository: Sendable {
    /// Every stored key, by algorithm and generation.
    func list() async throws -> [SigningKey]
    /// Stores the first key of its algorithm, unless the algorithm has a key already (another instance made one
    /// first): false then, and nothing is written.
    func addFirst(_ key: SigningKey) async throws -> Bool
    /// In one transaction: stores `key` as its algorithm's newest (the generation after the highest), gives the
    /// algorithm's other active keys `retireAt`, and deletes keys of any algorithm retired at or before `now`.
    /// Returns the key as stored.
    func rotate(to key: SigningKey, retiringOthersAt retireAt: Date, now: Date) async throws -> SigningKey
}
