import Foundation

/// Storage of the outbox.
public protocol OutboxRepository: Sendable {
    /// Stores `entry` and, in the same transaction, `code` (replacing the user's earlier code of that purpose):
    /// a message and the code it carries exist together or not at all.
    @discardableResult func record(_ entry: OutboxEntry, issuing code: OneTimeCode?) async throws -> OutboxEntry
    /// Waiting (`pending` or `deferred`) entries whose next attempt is due at `now`, at most `limit`, earliest due
    /// first and, among those due at once (the outbox after a relay failure), the least tried first (so the message
    /// whose attempt found the relay failing is not always the one to try it again), then the oldest: in
    /// the same transaction each one's next attempt moves to `lease` and a `deferred` one becomes `pending` (it is
    /// being tried, no longer waiting for the relay), so no other process or instance takes it until then (one that
    /// stops mid-delivery leaves it to be retried once the lease ends).
    func claimDue(at now: Date, lease: Date, limit: Int) async throws -> [OutboxEntry]
    func update(_ entry: OutboxEntry) async throws
    func find(id: Int64) async throws -> OutboxEntry?
    /// Newest first.
    func list(limit: Int) async throws -> [OutboxEntry]
    /// How many messages wait for delivery (`pending` or `deferred`).
    func pendingCount() async throws -> Int
    /// When the oldest message still waiting for delivery was recorded; nil when none waits.
    func oldestWaiting() async throws -> Date?
    /// The relay failed: in one transaction every waiting message becomes `deferred` with `reason` as its last error
    /// and one more deferral, and waits until `now` plus the pause for the longest run of deferrals among them
    /// (`MailDelivery.pause(after:in:)`), or until its own next attempt if that is later. Returns when the relay is
    /// tried next.
    func deferWaiting(because reason: String, at now: Date, pauses: [TimeInterval]) async throws -> Date
    /// Every `deferred` message becomes `pending` and due at `now` (the relay worked, the service started, or an
    /// operator asked); with `relayWorks` the runs of deferrals start again from 0. Returns how many were deferred.
    @discardableResult func resumeDeferred(at now: Date, relayWorks: Bool) async throws -> Int
    /// Until when the outbox waits for the relay: the earliest next attempt of a `deferred` message (nil when none
    /// is deferred). While that is ahead, no message is claimed, not even one recorded since.
    func relayPausedUntil() async throws -> Date?
    /// Makes waiting messages whose code has expired `failed` (`MailDelivery.expiredBeforeDelivery`, with the error
    /// they last waited for), then clears the bodies of those, of delivered and suppressed messages, and of
    /// any message whose code has expired; returns how many bodies were cleared. A failed message keeps its body
    /// until its code expires, so that `capturectl mail retry` can still send it.
    func forgetBodies(at now: Date) async throws -> Int
    /// Makes cleared bodies unrecoverable from the storage's files too (old page images, the write-ahead log).
    func scrub() async throws
}
