import Foundation

/// Counts failed sign-ins per key in a sliding window: an email address may fail `maxFailures` times; a
/// network address (`address:` keys, shared behind carrier NAT) ten times as often.
/// Bounded: the oldest keys are dropped past `capacity`, so memory stays flat under attack.
public actor SignInThrottle {
    public static let networkAddressPrefix = "address:"
    private let maxFailures: Int
    private let window: TimeInterval
    private let capacity: Int
    private var failures: [String: [Date]] = [:]

    public init(maxFailures: Int, window: TimeInterval, capacity: Int = 100_000) {
        self.maxFailures = maxFailures
        self.window = window
        self.capacity = capacity
    }

    public func isBlocked(_ keys: [String], now: Date) -> Bool {
        keys.contains { key in
            recent(key, now: now).count >= (key.hasPrefix(Self.networkAddressPrefix) ? maxFailures * 10 : maxFailures)
        }
    }

    public func recordFailure(_ keys: [String], now: Date) {
        if failures.count >= capacity, let oldest = failures.min(by: { ($0.value.last ?? .distantPast) < ($1.value.last ?? .distantPast) }) {
            failures[oldest.key] = nil
        }
        for key in keys {
            failures[key] = recent(key, now: now) + [now]
        }
    }

    public func reset(_ keys: [String]) {
        for key in keys { failures[key] = nil }
    }

    private func recent(_ key: String, now: Date) -> [Date] {
        (failures[key] ?? []).filter { now.timeIntervalSince($0) < window }
    }
}
