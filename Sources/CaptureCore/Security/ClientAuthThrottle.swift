import Foundation

/// Failed client authentications on the server API (a wrong secret, a bad signature, an unknown client), counted as
/// failed passwords are (`SignInThrottle`'s limits and window): per client and address, and per address over all
/// clients. Past either limit a failure answers `rateLimited`. Only failures are written: a right secret costs the
/// throttle nothing, and a secret of 256 random bits cannot be guessed, so telling a right guess from a wrong one
/// after the limit gains an attacker nothing (docs/threat-model.md, "Server API credentials").
public struct ClientAuthThrottle: Sendable {
    let store: any ThrottleRepository
    let perClient: ThrottleRule
    let perAddress: ThrottleRule

    public init(store: any ThrottleRepository, settings: ServiceSettings) {
        self.store = store
        perClient = ThrottleRule(capacity: settings.signInMaxFailures, drainSeconds: settings.signInWindowSeconds)
        perAddress = ThrottleRule(
            capacity: settings.signInMaxFailuresPerAddress, drainSeconds: settings.signInWindowSeconds)
    }

    /// Charges a failure; true when a limit was used up already (the caller answers `rateLimited`).
    func failed(clientID: String, address: String?, now: Date) async throws -> Bool {
        let counters = [
            (SignInThrottle.Keys.hashed("client|\(clientID)|\(address ?? "-")"), perClient),
            (SignInThrottle.Keys.hashed("client-address|" + (address ?? "-")), perAddress),
        ]
        return try await store.update(counters.map(\.0), now: now) { states in
            let exhausted = counters.contains { key, rule in rule.isExhausted(states[key], at: now) }
            var changes: [String: ThrottleState?] = [:]
            for (key, rule) in counters where !rule.isExhausted(states[key], at: now) {
                changes[key] = rule.adding(to: states[key], at: now)
            }
            return (changes, exhausted)
        }
    }
}
