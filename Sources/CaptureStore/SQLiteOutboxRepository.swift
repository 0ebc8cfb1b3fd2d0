import CaptureCore
import Foundation
import GRDB

/// The outbox in SQLite.
struct SQLiteOutboxRepository: OutboxRepository {
    let writer: MeteredDatabase

    func record(_ entry: OutboxEntry, issuing code: OneTimeCode?) async throws -> OutboxEntry {
        try await writer.write { db in
            if let code { try SQLiteCodeRepository.issue(code, in: db) }
            var entry = entry
            try entry.insert(db)
            return entry
        }
    }

    func claimDue(at now: Date, lease: Date, limit: Int) async throws -> [OutboxEntry] {
        try await writer.write { db in
            var due = try OutboxEntry.filter(Column("status") == OutboxEntry.Status.pending.rawValue && Column("nextAttemptAt") <= now)
                .order(Column("nextAttemptAt"), Column("id")).limit(limit).fetchAll(db)
            for index in due.indices {
                due[index].nextAttemptAt = lease
                try due[index].update(db, columns: ["nextAttemptAt"])
            }
            return due
        }
    }

    func update(_ entry: OutboxEntry) async throws {
        try await writer.write { db in try entry.update(db) }
    }

    func find(id: Int64) async throws -> OutboxEntry? {
        try await writer.read { db in try OutboxEntry.fetchOne(db, key: id) }
    }

    func list(limit: Int) async throws -> [OutboxEntry] {
        try await writer.read { db in try OutboxEntry.order(Column("id").desc).limit(limit).fetchAll(db) }
    }

    func pendingCount() async throws -> Int {
        try await writer.read { db in
            try OutboxEntry.filter(Column("status") == OutboxEntry.Status.pending.rawValue).fetchCount(db)
        }
    }

    func forgetBodies(at now: Date) async throws -> Int {
        try await writer.write { db in
            try OutboxEntry.filter(Column("text") != nil || Column("html") != nil)
                .filter(Column("status") != OutboxEntry.Status.pending.rawValue || Column("bodyExpiresAt") <= now)
                .updateAll(db, Column("text").set(to: nil), Column("html").set(to: nil))
        }
    }

    /// `secure_delete` (set on every connection) zeroes what an update frees in the database file; a truncating
    /// checkpoint then copies the cleared pages home and empties the WAL, where the old page images would remain.
    /// Best effort: a reader still holding an old snapshot makes SQLite stop early, and the next pass finishes it.
    func scrub() async throws {
        try await writer.writeWithoutTransaction { db in
            _ = try? db.checkpoint(.truncate)
        }
    }
}
