import CaptureCore

/// What a backend's engine reads for `CachedTokenChecks`: a check with the key of its user's row (what the change
/// stamps name, `ChangeStamps.Subject.user`), and the rest of a kept check.
public protocol TokenCheckReads: Sendable {
    /// The check read from the database, with its user's row key (nil when the user is gone).
    func read(_ key: String, _ depth: TokenCheck.Depth) async throws -> (check: TokenCheck, userRow: Int64?)?
    /// `kept` (what `.account` reads, from memory) read on to `depth` (`.user` or `.record`): its user by `userRow`
    /// or its id, and for `.record` the stored record; nil when the user's row is gone.
    func complete(_ kept: TokenCheck, userRow: Int64, _ depth: TokenCheck.Depth) async throws -> TokenCheck?
}

/// Token checks answered from memory (`TokenCheckCache`) while nothing they depend on has changed, else by the
/// engine, whose answer is kept when it is one the cache holds (an active access token of an active account). A
/// `.account` check kept is answered with no read at all; a deeper one reads only its user's row. Every answer counts
/// as kept or read (`CaptureMetrics.tokenCheck`).
public struct CachedTokenChecks<Engine: TokenCheckReads>: TokenChecks {
    public let engine: Engine
    public let cache: TokenCheckCache
    let metrics: CaptureMetrics

    public init(_ engine: Engine, cache: TokenCheckCache, metrics: CaptureMetrics) {
        self.engine = engine
        self.cache = cache
        self.metrics = metrics
    }

    public func check(_ key: String, _ depth: TokenCheck.Depth) async throws -> TokenCheck? {
        if let (kept, userRow) = cache.kept(key: key) {
            if depth == .account {
                metrics.tokenCheck(kept: true)
                return kept
            }
            if let found = try await engine.complete(kept, userRow: userRow, depth) {
                metrics.tokenCheck(kept: true)
                return found
            }
        }
        metrics.tokenCheck(kept: false)
        // Read before the rows: a change committed after this is newer than what is kept (`ChangeStamps`).
        let generation = cache.generation
        guard let (found, userRow) = try await engine.read(key, depth) else { return nil }
        if let userRow { cache.keep(found, key: key, userRow: userRow, generation: generation) }
        return found
    }
}

extension TokenCheckReads where Self: TokenChecks {
    /// The engine behind `cache`, or alone without one (a database in memory, one whose changes cannot be heard).
    public func cached(by cache: TokenCheckCache?, metrics: CaptureMetrics) -> any TokenChecks {
        guard let cache else { return self }
        return CachedTokenChecks(self, cache: cache, metrics: metrics)
    }
}
