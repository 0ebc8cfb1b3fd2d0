import Foundation

/// Where the current time comes from; injected so tests can move the clock.
public protocol TimeSource: Sendable {
    func now() -> Date
}

/// The wall clock.
public struct SystemTime: TimeSource {
    public init() {}
    public func now() -> Date { Date() }
}
