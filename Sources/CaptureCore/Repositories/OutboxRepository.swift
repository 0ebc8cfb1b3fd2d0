import Foundation

/// Storage of the outbox.
public protocol OutboxRepository: Sendable {
    /// Stores `entry` and, in the same transaction, `code` (replacing the user's earlier code of that purpose):
    /// a message and the code it carries exist together or not at all.
    @discardableResult func record(_ entry: OutboxEntry, issuing code: OneTimeCode?) async throws -> OutboxEntry
    /// Pending entries whose next attempt is due at `now`, oldest first, at most `limit`: in the same transaction each
    /// one's next attempt moves to `lease`, so no other process or instance takes it until then (one that stops
    /// mid-delivery leaves it to be retried once the lease ends).
    func claimDue(at now: Date, lease: Date, limit: Int) async throws -> [OutboxEntry]
    func update(_ entry: OutboxEntry) async throws
    func find(id: Int64) async throws -> OutboxEntry?
    /// Newest first.
    func list(limit: Int) async throws -> [OutboxEntry]
    /// How many messages wait for delivery.
    func pendingCount() async throws -> Int
    /// Clears the bodies of delivered messages and of messages whose code has expired; returns how many.
    func forgetBodies(at now: Date) async throws -> Int
    /// Makes cleared bodies unrecoverable from the storage's files too (old page images, the write-ahead log).
    func scrub() async throws
}
