import CaptureCore
import Foundation
import PostgresNIO

/// Throttle counters in PostgreSQL, shared by every instance: an update holds a lock per key (taken in key order,
/// so two updates never wait on each other in a cycle) from the read to the commit, so concurrent attempts are
/// each counted even for a key that has no row yet.
struct PostgresThrottleRepository: ThrottleRepository {
    let store: PostgresStore

    func update<Verdict: Sendable>(
        _ keys: [String], now: Date,
        _ decide: @Sendable ([String: ThrottleState]) -> (changes: [String: ThrottleState?], verdict: Verdict)
    ) async throws -> Verdict {
        try await store.transaction { connection in
            let keys = Set(keys).sorted()
            for key in keys { try await connection.lock("throttle:" + key) }
            var states: [String: ThrottleState] = [:]
            for row in try await connection.rows("SELECT * FROM throttle WHERE key = ANY(\(keys))") {
                let c = Columns(row)
                states[try c("key")] = ThrottleState(
                    level: try c("level"), updatedAt: try c("updated_at"), expiresAt: try c("expires_at"))
            }
            let (changes, verdict) = decide(states)
            for (key, state) in changes.sorted(by: { $0.key < $1.key }) {
                if let state {
                    try await connection.rows(
                        """
                        INSERT INTO throttle (key, level, updated_at, expires_at)
                        VALUES (\(key), \(state.level), \(state.updatedAt), \(state.expiresAt))
                        ON CONFLICT (key) DO UPDATE SET level = excluded.level, updated_at = excluded.updated_at,
                            expires_at = excluded.expires_at
                        """)
                } else {
                    try await connection.rows("DELETE FROM throttle WHERE key = \(key)")
                }
            }
            // A few expired counters, through the index; rows another update holds are left for the next one.
            try await connection.rows(
                """
                DELETE FROM throttle WHERE key IN (
                    SELECT key FROM throttle WHERE expires_at < \(now) LIMIT \(ThrottleStorage.purgeBatch)
                    FOR UPDATE SKIP LOCKED)
                """)
            return verdict
        }
    }

    func purge(expiredBefore cutoff: Date) async throws -> Int {
        try await store.query(
            "WITH gone AS (DELETE FROM throttle WHERE expires_at < \(cutoff) RETURNING 1) SELECT count(*) AS n FROM gone"
        ).first.map { try Columns($0)("n", as: Int.self) } ?? 0
    }
}
