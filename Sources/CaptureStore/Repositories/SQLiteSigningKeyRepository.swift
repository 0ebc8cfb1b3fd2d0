import CaptureCore
import Foundation
import GRDB

/// Signing keys in SQLite. Writes are one transaction each on the one writer, so a first key or a rotation decides
/// on the rows as they are; the unique (alg, generation) also holds against another process on the file.
struct SQLiteSigningKeyRepository: SigningKeyRepository {
    let writer: MeteredDatabase

    func list() async throws -> [SigningKey] {
        try await writer.read { db in try SigningKeyRow.order(Column("alg"), Column("generation")).values(db) }
    }

    func addFirst(_ key: SigningKey) async throws -> Bool {
        try await writer.write { db in
            guard try SigningKeyRow.filter(Column("alg") == key.algorithm.rawValue).fetchCount(db) == 0 else { return false }
            var first = key
            first.generation = 1
            try SigningKeyRow(first).insert(db)
            return true
        }
    }

    func rotate(to key: SigningKey, retiringOthersAt retireAt: Date, now: Date) async throws -> SigningKey {
        try await writer.write { db in
            try SigningKeyRow.filter(Column("retireAt") <= now).deleteAll(db)
            let mine = SigningKeyRow.filter(Column("alg") == key.algorithm.rawValue)
            try mine.filter(Column("retireAt") == nil).updateAll(db, Column("retireAt").set(to: retireAt))
            var newest = key
            let highest = try Int.fetchOne(
                db, sql: "SELECT COALESCE(MAX(generation), 0) FROM signing_keys WHERE alg = ?",
                arguments: [key.algorithm.rawValue])
            newest.generation = (highest ?? 0) + 1
            try SigningKeyRow(newest).insert(db)
            return newest
        }
    }
}
