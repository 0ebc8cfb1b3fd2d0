import Foundation

/// When the old app may be asked (docs/adr/0065-sign-in-time-migration.md): never from the cutover on; not while
/// the circuit is open (`failuresToOpen` failures in a row open it for `cooldown`; then one trial call at a time
/// decides: an answer closes it, a failure opens it again); and at most `maxInFlight` calls at once, so a slow old
/// app cannot hold every request. One per process: each instance of a cluster counts its own failures.
public actor LegacyBreaker {
    public let cutover: Date
    public let failuresToOpen: Int
    public let cooldown: TimeInterval
    public let maxInFlight: Int
    private(set) var consecutiveFailures = 0
    private(set) var openUntil: Date?
    private var trialInFlight = false
    private var inFlight = 0

    public init(cutover: Date, failuresToOpen: Int, cooldown: TimeInterval, maxInFlight: Int) {
        self.cutover = cutover
        self.failuresToOpen = max(1, failuresToOpen)
        self.cooldown = cooldown
        self.maxInFlight = max(1, maxInFlight)
    }

    public init(_ settings: LegacyJanrainSettings) {
        self.init(
            cutover: settings.cutoverDate ?? .distantPast, failuresToOpen: settings.resolvedBreakerFailures,
            cooldown: settings.resolvedBreakerCooldown, maxInFlight: settings.resolvedMaxConcurrentCalls)
    }

    /// A permit to ask the old app now, or nil. A permit must be given back with `finish`.
    public func admit(now: Date) -> Permit? {
        guard now < cutover, inFlight < maxInFlight else { return nil }
        var trial = false
        if let openUntil {
            guard now >= openUntil, !trialInFlight else { return nil }
            trialInFlight = true
            trial = true
        }
        inFlight += 1
        return Permit(trial: trial)
    }

    /// The outcome of a permitted call: `answered` when the old app gave a Janrain answer (yes or no).
    public func finish(_ permit: Permit, answered: Bool, now: Date) {
        inFlight -= 1
        if permit.trial { trialInFlight = false }
        if answered {
            consecutiveFailures = 0
            openUntil = nil
        } else {
            consecutiveFailures += 1
            if consecutiveFailures >= failuresToOpen || permit.trial { openUntil = now.addingTimeInterval(cooldown) }
        }
    }

    /// Whether the circuit is open at `now` (for tests and the log).
    public func isOpen(now: Date) -> Bool {
        openUntil.map { now < $0 } ?? false
    }

    public struct Permit: Sendable {
        let trial: Bool
    }
}
