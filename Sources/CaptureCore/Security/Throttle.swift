import Foundation

/// One counter of a throttle, as stored: a leaky bucket's level when it last changed.
public struct ThrottleState: Sendable, Equatable {
    public var level: Double
    public var updatedAt: Date
    /// When the stored row says nothing any more and may be forgotten.
    public var expiresAt: Date

    public init(level: Double, updatedAt: Date, expiresAt: Date) {
        self.level = level
        self.updatedAt = updatedAt
        self.expiresAt = expiresAt
    }
}

/// How one kind of counter fills and drains: `capacity` events, drained evenly over `drainSeconds`
/// (a leaky bucket, so there is no window edge at which the allowance doubles), or never (`nil`: a streak
/// that only a success resets).
public struct ThrottleRule: Sendable, Equatable {
    public var capacity: Int
    public var drainSeconds: TimeInterval?
    /// How long a counter that never drains is kept after its last change.
    public static let streakRetention: TimeInterval = 30 * 86400

    public init(capacity: Int, drainSeconds: TimeInterval?) {
        self.capacity = capacity
        self.drainSeconds = drainSeconds
    }

    public func level(of state: ThrottleState?, at now: Date) -> Double {
        guard let state else { return 0 }
        guard let drainSeconds else { return state.level }
        let drained = max(0, now.timeIntervalSince(state.updatedAt)) * Double(capacity) / drainSeconds
        return max(0, state.level - drained)
    }

    /// True when one more event would overflow the bucket.
    public func isExhausted(_ state: ThrottleState?, at now: Date) -> Bool {
        level(of: state, at: now) + 1 > Double(capacity) + 1e-9
    }

    /// The state after one more event at `now`.
    public func adding(to state: ThrottleState?, at now: Date) -> ThrottleState {
        stored(level: level(of: state, at: now) + 1, at: now)!
    }

    /// The state after taking back one event at `now`; nil when nothing is left to remember.
    public func removing(from state: ThrottleState?, at now: Date) -> ThrottleState? {
        stored(level: level(of: state, at: now) - 1, at: now)
    }

    private func stored(level: Double, at now: Date) -> ThrottleState? {
        guard level > 1e-9 else { return nil }
        let expiresAt = drainSeconds.map { now + level * $0 / Double(capacity) } ?? now + Self.streakRetention
        return ThrottleState(level: level, updatedAt: now, expiresAt: expiresAt)
    }
}
