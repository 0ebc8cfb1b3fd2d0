import CaptureCore
import Foundation
import PostgresNIO

/// One-time codes in PostgreSQL. `use` holds a lock on the user and purpose, so concurrent wrong entries from any
/// instance are each counted.
struct PostgresCodeRepository: CodeRepository {
    let store: PostgresStore

    func use<Verdict: Sendable>(
        userID: String, purpose: CodePurpose, _ decide: @Sendable (OneTimeCode?) -> (OneTimeCode?, Verdict)
    ) async throws -> Verdict {
        try await store.transaction { connection in
            try await connection.lock("codes:\(userID):\(purpose.rawValue)")
            let newest = try await connection.rows(
                """
                SELECT * FROM codes WHERE user_id = \(userID) AND purpose = \(purpose.rawValue)
                ORDER BY id DESC LIMIT 1
                """
            ).first.map(Self.record)
            let (changed, verdict) = decide(newest)
            if let changed {
                if let id = changed.id {
                    try await connection.rows(
                        """
                        UPDATE codes SET hash = \(changed.hash), expires_at = \(changed.expiresAt),
                            attempts = \(changed.attempts), used_at = \(changed.usedAt)
                        WHERE id = \(id)
                        """)
                } else {
                    try await Self.insert(changed, on: connection)
                }
            }
            return verdict
        }
    }

    func holders(address: String, purpose: CodePurpose, at now: Date) async throws -> [String] {
        try await store.query(
            """
            SELECT user_id FROM codes WHERE address = \(address) AND purpose = \(purpose.rawValue)
                AND used_at IS NULL AND expires_at > \(now)
            """
        ).map { try Columns($0)("user_id") }
    }

    func purge(expiredBefore cutoff: Date) async throws -> Int {
        try await store.query(
            "WITH gone AS (DELETE FROM codes WHERE expires_at < \(cutoff) RETURNING 1) SELECT count(*) AS n FROM gone"
        ).first.map { try Columns($0)("n", as: Int.self) } ?? 0
    }

    /// Stores `code` and forgets the user's earlier codes of its purpose (only the newest ever counts).
    static func issue(_ code: OneTimeCode, on connection: PostgresConnection) async throws {
        try await connection.lock("codes:\(code.userID):\(code.purpose.rawValue)")
        try await connection.rows(
            "DELETE FROM codes WHERE user_id = \(code.userID) AND purpose = \(code.purpose.rawValue)")
        try await insert(code, on: connection)
    }

    private static func insert(_ code: OneTimeCode, on connection: PostgresConnection) async throws {
        try await connection.rows(
            """
            INSERT INTO codes (purpose, user_id, hash, address, created_at, expires_at, attempts, used_at)
            VALUES (\(code.purpose.rawValue), \(code.userID), \(code.hash), \(code.address), \(code.createdAt),
                \(code.expiresAt), \(code.attempts), \(code.usedAt))
            """)
    }

    static func record(_ row: PostgresRow) throws -> OneTimeCode {
        let c = Columns(row)
        var code = OneTimeCode(
            purpose: CodePurpose(rawValue: try c("purpose")) ?? .passwordReset, userID: try c("user_id"),
            hash: try c("hash"), address: try c("address"), createdAt: try c("created_at"), expiresAt: try c("expires_at"))
        code.id = try c("id")
        code.attempts = try c("attempts")
        code.usedAt = try c("used_at")
        return code
    }
}
