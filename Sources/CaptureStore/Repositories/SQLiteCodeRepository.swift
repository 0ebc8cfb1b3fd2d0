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
            let newest = try OneTimeCode.filter(Column("userID") == userID && Column("purpose") == purpose.rawValue)
                .order(Column("id").desc).fetchOne(db)
            let (changed, verdict) = decide(newest)
            if var changed { try changed.save(db) }
            return verdict
        }
    }

    func holders(address: String, purpose: CodePurpose, at now: Date) async throws -> [String] {
        try await writer.read { db in
            try OneTimeCode.filter(Column("address") == address && Column("purpose") == purpose.rawValue)
                .filter(Column("usedAt") == nil && Column("expiresAt") > now)
                .fetchAll(db).map(\.userID)
        }
    }

    func purge(expiredBefore cutoff: Date) async throws -> Int {
        try await writer.write { db in try OneTimeCode.filter(Column("expiresAt") < cutoff).deleteAll(db) }
    }

    /// Stores `code` and forgets the user's earlier codes of its purpose (only the newest ever counts).
    static func issue(_ code: OneTimeCode, in db: Database) throws {
        try OneTimeCode.filter(Column("userID") == code.userID && Column("purpose") == code.purpose.rawValue).deleteAll(db)
        var code = code
        try code.insert(db)
    }
}
