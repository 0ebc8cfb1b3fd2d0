import Foundation

/// Storage of throttle counters by key (a SHA-256 of what they count: an account, an address, a device), so
/// limits survive a restart and are shared by every process on the database. Bounded: each change also forgets a
/// few expired counters, found through an index, never by a scan.
public protocol ThrottleRepository: Sendable {
    /// In one transaction: reads the keys' states, stores the changes `decide` returns (nil forgets a key), forgets
    /// up to `ThrottleStorage.purgeBatch` counters that expired before `now`, and returns `decide`'s verdict.
    func update<Verdict: Sendable>(
        _ keys: [String], now: Date,
        _ decide: @Sendable ([String: ThrottleState]) -> (changes: [String: ThrottleState?], verdict: Verdict)
    ) async throws -> Verdict
    /// Forgets every counter that expired before `cutoff`; returns how many.
    func purge(expiredBefore cutoff: Date) async throws -> Int
}

public enum ThrottleStorage {
    /// Expired counters removed per change: more than one change creates, so the table cannot grow without bound.
    public static let purgeBatch = 16
}
