import CaptureCore
import Foundation
import GRDB

/// One-time codes in SQLite.
struct SQLiteCodeRepository: CodeRepository {
    let writer: MeteredDatabase

    func use<Verdict: Sendable>(
        userID: String, purpose: CodePurpose, _ decide: @Sendable (OneTimeCode?) -> (OneTimeCode?, Verdict)
    ) async throws -> Verdict {
        try await writer.write { db in
            let newest = try CodeRow.filter(Column("userID") == userID && Column("purpose") == purpose.rawValue)
                .order(Column("id").desc).value(db)
            let (changed, verdict) = decide(newest)
            if let changed {
                var row = CodeRow(changed)
                try row.save(db)
            }
            return verdict
        }
    }

    func holders(address: String, purpose: CodePurpose, at now: Date) async throws -> [String] {
        try await writer.read { db in
            try CodeRow.filter(Column("address") == address && Column("purpose") == purpose.rawValue)
                .filter(Column("usedAt") == nil && Column("expiresAt") > now)
                .values(db).map(\.userID)
        }
    }

    func purge(expiredBefore cutoff: Date) async throws -> Int {
        try await writer.write { db in try CodeRow.filter(Column("expiresAt") < cutoff).deleteAll(db) }
    }

    /// Stores `code` and forgets the user's earlier codes of its purpose (only the newest ever counts).
    static func issue(_ code: OneTimeCode, in db: Database) throws {
        try CodeRow.filter(Column("userID") == code.userID && Column("purpose") == code.purpose.rawValue).deleteAll(db)
        try CodeRow.insert(code, in: db)
    }
}
