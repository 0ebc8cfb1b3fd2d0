import Foundation

/// The limits on password sign-in and registration (docs/adr/0022-sign-in-throttling.md maps them to OWASP's
/// Authentication cheat sheet and NIST SP 800-63B §5.2.2). Counters live in the database, so a restart forgets
/// nothing, and a failed attempt is charged *before* the password is checked, so parallel guesses cannot all slip
/// through while the first ones are still hashing.
///
/// What an attacker cannot aim: failures are counted per account *and source*. A source is a device token the
/// account's owner got on an earlier sign-in, else the network address. Guessing from one address blocks that
/// address for that account, not the owner elsewhere; after `consecutive` failures from unknown addresses the
/// account accepts passwords only from its owner's devices and from addresses it signed in from before (NIST's
/// allow-list). Those sources of the owner's are limited on their own and not by the per-address limit either, so
/// guesses at other accounts through a shared address do not stop them.
public struct SignInThrottle: Sendable {
    /// Where an attempt comes from, as far as the account is concerned.
    public enum Source: Sendable, Equatable {
        /// A device token issued to this account's owner (its hash).
        case device(String)
        /// An address this account signed in from within `knownAddressRetention`.
        case knownAddress(String)
        /// Anything else (the address, when there is one).
        case unknown(String?)
    }

    /// A charged attempt: what `succeeded` must undo.
    public struct Attempt: Sendable, Equatable {
        public var source: Source
        let email: String
        let address: String?
    }

    public static let knownAddressRetention: TimeInterval = 90 * 86400

    let store: any ThrottleRepository
    /// Failures per account and source.
    let perSource: ThrottleRule
    /// Failures per network address, over all accounts (shared behind carrier NAT, hence larger).
    let perAddress: ThrottleRule
    /// Consecutive failures of an account from sources it does not know; only a success resets it.
    let consecutive: ThrottleRule
    /// Registration attempts per network address.
    let registrations: ThrottleRule
    /// Requests for a reset or verification code, per email address and per network address.
    let codeRequestsPerEmail: ThrottleRule
    let codeRequestsPerAddress: ThrottleRule

    public init(store: any ThrottleRepository, settings: ServiceSettings) {
        self.store = store
        let window = settings.signInWindowSeconds
        perSource = ThrottleRule(capacity: settings.signInMaxFailures, drainSeconds: window)
        perAddress = ThrottleRule(capacity: settings.signInMaxFailuresPerAddress, drainSeconds: window)
        consecutive = ThrottleRule(capacity: settings.signInMaxConsecutiveFailures, drainSeconds: nil)
        registrations = ThrottleRule(capacity: settings.registrationsPerAddress, drainSeconds: window)
        codeRequestsPerEmail = ThrottleRule(capacity: settings.codeRequestsPerEmail, drainSeconds: window)
        codeRequestsPerAddress = ThrottleRule(capacity: settings.codeRequestsPerAddress, drainSeconds: window)
    }

    /// Charges one attempt on `email` against every limit that applies to its source, or throws
    /// `rateLimited` (charging nothing) when one is used up. `deviceHash` is a device token already checked
    /// to belong to this account.
    public func begin(email: String, deviceHash: String?, address: String?, now: Date) async throws -> Attempt {
        let keys = Keys(email: email, deviceHash: deviceHash, address: address)
        let rules = self.rules
        let attempt: Attempt? = try await store.update(keys.all, now: now) { states in
            let source: Source
            if let deviceHash {
                source = .device(deviceHash)
            } else if let address, let known = states[keys.known], known.expiresAt > now {
                source = .knownAddress(address)
            } else {
                source = .unknown(address)
            }
            let charged = rules.charged(keys, source: source)
            if charged.contains(where: { key, rule in rule.isExhausted(states[key], at: now) }) {
                return ([:], nil)
            }
            var changes: [String: ThrottleState?] = [:]
            for (key, rule) in charged { changes[key] = rule.adding(to: states[key], at: now) }
            return (changes, Attempt(source: source, email: email, address: address))
        }
        guard let attempt else { throw CaptureError.rateLimited }
        return attempt
    }

    /// The password was right: the account's counters for this source start over, the address's charge is
    /// refunded (successes never use up a shared address), and the address becomes one the account knows.
    public func succeeded(_ attempt: Attempt, now: Date) async throws {
        let keys = Keys(email: attempt.email, deviceHash: nil, address: attempt.address)
        let sourceKey = Keys.source(email: attempt.email, attempt.source)
        let perAddress = self.perAddress
        try await store.update([sourceKey] + keys.all, now: now) { states in
            var changes: [String: ThrottleState?] = [sourceKey: nil, keys.consecutive: nil]
            if let addressKey = keys.addressCounter {
                if case .unknown = attempt.source {
                    changes[addressKey] = perAddress.removing(from: states[addressKey], at: now)
                }
                changes[keys.known] = ThrottleState(level: 0, updatedAt: now, expiresAt: now + Self.knownAddressRetention)
            }
            return (changes, ())
        }
    }

    /// A new account's address is one it knows from then on, as if it had signed in there.
    public func registered(email: String, address: String?, now: Date) async throws {
        guard let address else { return }
        let known = Keys(email: email, deviceHash: nil, address: address).known
        try await store.update([known], now: now) { _ in
            ([known: ThrottleState(level: 0, updatedAt: now, expiresAt: now + Self.knownAddressRetention)], ())
        }
    }

    /// Counts a registration attempt from `address`, or throws `rateLimited` when the address used its allowance.
    public func admitRegistration(address: String?, now: Date) async throws {
        try await admit([(Keys.hashed("register|" + (address ?? "-")), registrations)], now: now)
    }

    /// Counts a request for a reset or verification code, or throws `rateLimited` (for an address with or
    /// without an account alike, so the limit tells nothing either).
    public func admitCodeRequest(email: String, address: String?, now: Date) async throws {
        try await admit(
            [
                (Keys.hashed("code|email|" + email), codeRequestsPerEmail),
                (Keys.hashed("code|address|" + (address ?? "-")), codeRequestsPerAddress),
            ], now: now)
    }

    /// The owner proved the mailbox (a password reset): the account's streak and this source's failures are
    /// forgotten, and the address becomes one the account knows; the lockout only the owner's proof lifts.
    public func ownerProved(email: String, address: String?, now: Date) async throws {
        let keys = Keys(email: email, deviceHash: nil, address: address)
        try await store.update([keys.consecutive, keys.addressSource, keys.known], now: now) { _ in
            var changes: [String: ThrottleState?] = [keys.consecutive: nil, keys.addressSource: nil]
            if address != nil {
                changes[keys.known] = ThrottleState(level: 0, updatedAt: now, expiresAt: now + Self.knownAddressRetention)
            }
            return (changes, ())
        }
    }

    /// Charges one event to every counter, or none when one of them is used up.
    private func admit(_ counters: [(String, ThrottleRule)], now: Date) async throws {
        let admitted = try await store.update(counters.map(\.0), now: now) { states in
            if counters.contains(where: { key, rule in rule.isExhausted(states[key], at: now) }) { return ([:], false) }
            var changes: [String: ThrottleState?] = [:]
            for (key, rule) in counters { changes[key] = rule.adding(to: states[key], at: now) }
            return (changes, true)
        }
        guard admitted else { throw CaptureError.rateLimited }
    }

    private var rules: Rules {
        Rules(perSource: perSource, perAddress: perAddress, consecutive: consecutive)
    }

    /// Which counters an attempt from a source is charged to.
    struct Rules: Sendable {
        let perSource: ThrottleRule
        let perAddress: ThrottleRule
        let consecutive: ThrottleRule

        func charged(_ keys: Keys, source: Source) -> [(String, ThrottleRule)] {
            var charged = [(Keys.source(email: keys.email, source), perSource)]
            // The owner's own devices and addresses are limited on their own: guesses at other accounts from a shared
            // address (a NAT, an untrusted proxy) and a streak from elsewhere do not stop them.
            guard case .unknown = source else { return charged }
            if let counter = keys.addressCounter { charged.append((counter, perAddress)) }
            charged.append((keys.consecutive, consecutive))
            return charged
        }
    }

    /// Counter keys, hashed so that the table holds neither addresses nor email addresses.
    struct Keys: Sendable {
        let email: String
        /// The per-address counter, when the attempt has an address.
        let addressCounter: String?
        let known: String
        let consecutive: String
        let deviceSource: String?
        let addressSource: String

        init(email: String, deviceHash: String?, address: String?) {
            self.email = email
            addressCounter = address.map { Self.hashed("address|" + $0) }
            known = Self.hashed("known|\(email)|\(address ?? "-")")
            consecutive = Self.hashed("consecutive|" + email)
            deviceSource = deviceHash.map { Self.source(email: email, .device($0)) }
            addressSource = Self.source(email: email, .unknown(address))
        }

        var all: [String] {
            [known, consecutive, addressSource] + [addressCounter, deviceSource].compactMap { $0 }
        }

        /// Known and unknown addresses share one per-source counter: trust changes which limits apply, not the count.
        static func source(email: String, _ source: Source) -> String {
            switch source {
            case .device(let hash): hashed("source|\(email)|device|" + hash)
            case .knownAddress(let address): hashed("source|\(email)|address|" + address)
            case .unknown(let address): hashed("source|\(email)|address|" + (address ?? "-"))
            }
        }

        static func hashed(_ key: String) -> String { TokenMinter.hash(key) }
    }
}
