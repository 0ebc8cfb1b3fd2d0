import CaptureCore
import Foundation
import GRDB

/// OpenID Connect grants in SQLite, one row per token chain.
struct SQLiteOIDCGrantRepository: OIDCGrantRepository {
    let writer: MeteredDatabase

    func insert(_ grant: OIDCGrant) async throws {
        try await writer.write { db in try OIDCGrantRow(grant).insert(db) }
    }

    func find(chainID: String) async throws -> OIDCGrant? {
        try await writer.read { db in try OIDCGrantRow.fetchOne(db, key: chainID)?.value }
    }

    func grants(inSession sessionID: String) async throws -> [OIDCGrant] {
        try await writer.read { db in try OIDCGrantRow.filter(Column("sessionID") == sessionID).values(db) }
    }

    func removeSession(_ sessionID: String) async throws -> Int {
        try await writer.write { db in try OIDCGrantRow.filter(Column("sessionID") == sessionID).deleteAll(db) }
    }

    func purge(expiredBefore cutoff: Date) async throws -> Int {
        try await writer.write { db in try OIDCGrantRow.filter(Column("expiresAt") < cutoff).deleteAll(db) }
    }
}
