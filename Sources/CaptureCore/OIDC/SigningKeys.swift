import CaptureJSON
import Foundation
import Synchronization

/// The service's JWS signing keys (docs/adr/0068-oidc-signing-keys.md): kept in the database sealed under the code
/// key, shared by every instance. Each instance keeps the keys it read in memory and reads them again at most every
/// `rereadSeconds` (so it picks up another instance's rotation), and at once when asked about a `kid` it does not know
/// (at most once per `unknownKeyRereadSeconds`, so tokens naming made-up keys cost no more than that).
public struct SigningKeys: Sendable {
    let store: any SigningKeyRepository
    let codeKey: CodeKey
    let time: any TimeSource
    let settings: ServiceSettings
    let cache = SigningKeyCache()

    public init(store: any SigningKeyRepository, codeKey: CodeKey, time: any TimeSource, settings: ServiceSettings) {
        self.store = store
        self.codeKey = codeKey
        self.time = time
        self.settings = settings
    }

    static let rereadSeconds: TimeInterval = 30
    static let unknownKeyRereadSeconds: TimeInterval = 1
    /// A retiring key stays published this long past the last ID token it can have signed (clocks differ).
    static let retirementLeewaySeconds: TimeInterval = 300

    /// Compact JWS of the claims, header {"alg","kid","typ":"JWT"}, signed with the newest active key of the
    /// algorithm; the first call makes the key (and stores it) when the database has none yet.
    public func sign(_ claims: [String: JSONValue], algorithm: JWSAlgorithm) async throws -> String {
        let (kid, key) = try await signer(algorithm)
        let header: JSONValue = ["alg": .string(algorithm.rawValue), "kid": .string(kid), "typ": "JWT"]
        let input =
            Data(header.encodedBytes()).base64URLEncoded() + "."
            + Data(JSONValue.object(claims).encodedBytes()).base64URLEncoded()
        // RSA-2048 signs in 1-2 ms: on the caller's task (making a key is slower: `newKey`).
        return input + "." + (try key.signature(of: Array(input.utf8))).base64URLEncoded()
    }

    /// Every published public key (active and retiring), as JSONWebKeySet — for checking our own tokens. With `kid`
    /// (a token's header names it) a key this instance has not seen yet is looked for in the database first.
    public func published(knowing kid: String? = nil) async throws -> JSONWebKeySet {
        var keys = try await keys()
        if let kid, !keys.contains(where: { $0.stored.kid == kid }), cache.mayReread(at: time.now()) {
            keys = try await self.keys(fresh: true)
        }
        return JSONWebKeySet(
            entries: Self.publishedKeys(keys, at: time.now()).compactMap { live in
                live.key.map { JSONWebKeySet.Entry(keyID: live.stored.kid, key: $0.publicKey) }
            })
    }

    /// The JWKS document `{"keys":[...]}` (kty, kid, use "sig", alg, n/e or crv/x/y), for the JWKS route.
    /// The first request makes a key of each algorithm (as the first `sign` would), so that a relying party that reads
    /// the set before any token was issued already holds the key of its first one. Read from the database each time
    /// (relying parties keep the set for minutes): a key another instance just made is published here at once, before
    /// this instance's signer, which reads again within `rereadSeconds`, takes it up.
    public func document() async throws -> JSONValue {
        for algorithm in JWSAlgorithm.allCases {
            if Self.newest(algorithm, in: try await keys()) == nil { _ = try await signer(algorithm) }
        }
        let keys = Self.publishedKeys(try await keys(fresh: true), at: time.now())
        return ["keys": .array(keys.compactMap { live in live.key.map { $0.publicJWK(kid: live.stored.kid) } })]
    }

    /// Every stored key, read from the database (an operator's list: what `SigningKeyView` shows of each).
    public func list() async throws -> [SigningKey] {
        try await keys(fresh: true).map(\.stored)
    }

    /// Makes a new key for each algorithm, which signs from now on; each one it replaces stays published until the
    /// ID tokens it signed have expired (`idTokenLifetimeSeconds` and five minutes from now). Keys retired before now
    /// are deleted. Returns the new keys.
    public func rotate(_ algorithms: [JWSAlgorithm] = JWSAlgorithm.allCases) async throws -> [SigningKey] {
        var made: [SigningKey] = []
        for algorithm in algorithms {
            let now = time.now()
            made.append(
                try await store.rotate(
                    to: try await newKey(algorithm, at: now), retiringOthersAt: retirement(from: now), now: now))
        }
        _ = try await keys(fresh: true)
        return made
    }

    // MARK: the keys in memory

    /// The algorithm's newest active key, made (and stored) when the database has none.
    func signer(_ algorithm: JWSAlgorithm) async throws -> (kid: String, key: PrivateSigningKey) {
        if let found = Self.newest(algorithm, in: try await keys()) { return try Self.usable(found) }
        // Requests arriving together before the first key share one making of it (an RSA key costs up to a second).
        let making = cache.making(algorithm) {
            Task {
                defer { cache.made(algorithm) }
                return try await firstSigner(algorithm)
            }
        }
        let (kid, key) = try await making.value
        return (kid, key)
    }

    /// The algorithm's newest active key as the database has it, else the one this instance makes and offers.
    func firstSigner(_ algorithm: JWSAlgorithm) async throws -> (kid: String, key: PrivateSigningKey) {
        if let found = Self.newest(algorithm, in: try await keys(fresh: true)) { return try Self.usable(found) }
        // None yet: instances starting together each offer one; the database keeps the first, and all read it back.
        let now = time.now()
        let offered = try await newKey(algorithm, at: now)
        if try await !store.addFirst(offered), Self.newest(algorithm, in: try await keys(fresh: true)) == nil {
            // The algorithm has keys, all retiring (none is left active): a new one takes over.
            _ = try await store.rotate(to: offered, retiringOthersAt: retirement(from: now), now: now)
        }
        guard let found = Self.newest(algorithm, in: try await keys(fresh: true)) else {
            throw CaptureError.unexpected("no \(algorithm.rawValue) signing key after storing one")
        }
        return try Self.usable(found)
    }

    /// When a key replaced at `now` stops being published: after the last ID token it signed has expired.
    func retirement(from now: Date) -> Date {
        now + TimeInterval(settings.idTokenLifetimeSeconds) + Self.retirementLeewaySeconds
    }

    /// A new key, made on the `HashingPool`: an RSA 2048 key takes from a tenth of a second to a second or more (the
    /// search for primes), which must not hold an event loop.
    func newKey(_ algorithm: JWSAlgorithm, at now: Date) async throws -> SigningKey {
        let key = try await HashingPool.run { Result { try PrivateSigningKey(new: algorithm) } }.get()
        return SigningKey(
            kid: key.thumbprint, algorithm: algorithm, generation: 1, sealedKey: codeKey.seal(key.privateBytes),
            createdAt: now)
    }

    /// The keys as last read, read again when `fresh` or older than `rereadSeconds`.
    func keys(fresh: Bool = false) async throws -> [LiveKey] {
        let now = time.now()
        if !fresh, let kept = cache.kept(at: now, maxAge: Self.rereadSeconds) { return kept }
        let stored = try await store.list()
        let known = cache.byKid()
        let live = stored.map { key in
            // A key read before is not opened again (its row never changes but for `retireAt`).
            LiveKey(stored: key, key: known[key.kid] ?? PrivateSigningKey(key, codeKey: codeKey))
        }
        cache.keep(live, readAt: now)
        return live
    }

    static func newest(_ algorithm: JWSAlgorithm, in keys: [LiveKey]) -> LiveKey? {
        keys.filter { $0.stored.algorithm == algorithm && $0.stored.retireAt == nil }.max {
            $0.stored.generation < $1.stored.generation
        }
    }

    static func usable(_ live: LiveKey) throws -> (kid: String, key: PrivateSigningKey) {
        guard let key = live.key else {
            throw CaptureError.unexpected(
                "the newest \(live.stored.algorithm.rawValue) signing key (\(live.stored.kid)) does not open with this "
                    + "code key: give every instance the same code key, or run `capturectl keys rotate`")
        }
        return (live.stored.kid, key)
    }

    /// Active and retiring keys that open, by algorithm, the newest first.
    static func publishedKeys(_ keys: [LiveKey], at now: Date) -> [LiveKey] {
        keys.filter { $0.stored.isPublished(at: now) && $0.key != nil }.sorted {
            ($0.stored.algorithm.rawValue, -$0.stored.generation) < ($1.stored.algorithm.rawValue, -$1.stored.generation)
        }
    }
}

/// A stored key and its private half, opened; nil when it does not open with this instance's code key.
struct LiveKey: Sendable {
    let stored: SigningKey
    let key: PrivateSigningKey?
}

/// What one `SigningKeys` last read, and when.
final class SigningKeyCache: Sendable {
    private struct State {
        var keys: [LiveKey] = []
        var readAt: Date?
        var rereadForUnknownKeyAt: Date?
        var making: [JWSAlgorithm: Task<(kid: String, key: PrivateSigningKey), any Error>] = [:]
    }

    private let state = Mutex(State())

    /// The keys read at most `maxAge` ago (and not in the future: a clock set back reads again).
    func kept(at now: Date, maxAge: TimeInterval) -> [LiveKey]? {
        state.withLock { state in
            guard let readAt = state.readAt, readAt <= now, now.timeIntervalSince(readAt) < maxAge else { return nil }
            return state.keys
        }
    }

    func keep(_ keys: [LiveKey], readAt: Date) {
        state.withLock { state in
            state.keys = keys
            state.readAt = readAt
        }
    }

    func byKid() -> [String: PrivateSigningKey] {
        state.withLock { state in
            Dictionary(state.keys.compactMap { live in live.key.map { (live.stored.kid, $0) } }) { first, _ in first }
        }
    }

    /// The making of `algorithm`'s first key under way, else the one `start` begins.
    func making(
        _ algorithm: JWSAlgorithm, _ start: () -> Task<(kid: String, key: PrivateSigningKey), any Error>
    ) -> Task<(kid: String, key: PrivateSigningKey), any Error> {
        state.withLock { state in
            if let underway = state.making[algorithm] { return underway }
            let task = start()
            state.making[algorithm] = task
            return task
        }
    }

    /// The making of `algorithm`'s first key has ended (the next caller reads the database again).
    func made(_ algorithm: JWSAlgorithm) {
        state.withLock { state in state.making[algorithm] = nil }
    }

    /// Whether a token naming an unknown key may send this instance to the database now; if so, notes that it did.
    func mayReread(at now: Date) -> Bool {
        state.withLock { state in
            if let last = state.rereadForUnknownKeyAt, last <= now,
                now.timeIntervalSince(last) < SigningKeys.unknownKeyRereadSeconds
            {
                return false
            }
            state.rereadForUnknownKeyAt = now
            return true
        }
    }
}
