import CaptureCore
import Foundation
import GRDB

/// Throttle counters in SQLite: one row per hashed key, read and changed in one write transaction so that
/// concurrent attempts (from this process or another on the same file) are each counted.
struct SQLiteThrottleRepository: ThrottleRepository {
    let writer: MeteredDatabase

    func update<Verdict: Sendable>(
        _ keys: [String], now: Date,
        _ decide: @Sendable ([String: ThrottleState]) -> (changes: [String: ThrottleState?], verdict: Verdict)
    ) async throws -> Verdict {
        try await writer.write { db in
            var states: [String: ThrottleState] = [:]
            let select = try db.cachedStatement(sql: "SELECT level, updatedAt, expiresAt FROM throttle WHERE key = ?")
            for key in Set(keys) {
                if let row = try Row.fetchOne(select, arguments: [key]) {
                    states[key] = ThrottleState(level: row[0], updatedAt: row[1], expiresAt: row[2])
                }
            }
            let (changes, verdict) = decide(states)
            let upsert = try db.cachedStatement(
                sql: """
                    INSERT INTO throttle (key, level, updatedAt, expiresAt) VALUES (?, ?, ?, ?)
                    ON CONFLICT(key) DO UPDATE SET level = excluded.level, updatedAt = excluded.updatedAt,
                    expiresAt = excluded.expiresAt
                    """)
            let delete = try db.cachedStatement(sql: "DELETE FROM throttle WHERE key = ?")
            for (key, state) in changes {
                if let state {
                    try upsert.execute(arguments: [key, state.level, state.updatedAt, state.expiresAt])
                } else {
                    try delete.execute(arguments: [key])
                }
            }
            try db.cachedStatement(
                sql: "DELETE FROM throttle WHERE key IN (SELECT key FROM throttle WHERE expiresAt < ? LIMIT ?)"
            ).execute(arguments: [now, ThrottleStorage.purgeBatch])
            return verdict
        }
    }

    func purge(expiredBefore cutoff: Date) async throws -> Int {
        try await writer.write { db in
            try db.execute(sql: "DELETE FROM throttle WHERE expiresAt < ?", arguments: [cutoff])
            return db.changesCount
        }
    }
}
