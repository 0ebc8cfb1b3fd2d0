import CaptureCore
import Foundation
import GRDB

/// The outbox in SQLite.
struct SQLiteOutboxRepository: OutboxRepository {
    let writer: MeteredDatabase

    private static let pending = OutboxEntry.Status.pending.rawValue
    private static let deferred = OutboxEntry.Status.deferred.rawValue

    func record(_ entry: OutboxEntry, issuing code: OneTimeCode?) async throws -> OutboxEntry {
        try await writer.write { db in
            if let code { try SQLiteCodeRepository.issue(code, in: db) }
            return try OutboxRow.insert(entry, in: db)
        }
    }

    func claimDue(at now: Date, lease: Date, limit: Int) async throws -> [OutboxEntry] {
        try await writer.write { db in
            var due = try OutboxRow.filter(
                [Self.pending, Self.deferred].contains(Column("status")) && Column("nextAttemptAt") <= now
            )
            .order(Column("nextAttemptAt"), Column("attempts"), Column("id")).limit(limit).fetchAll(db)
            for index in due.indices {
                due[index].value.nextAttemptAt = lease
                due[index].value.status = .pending
                try due[index].update(db, columns: ["nextAttemptAt", "status"])
            }
            return due.map(\.value)
        }
    }

    func update(_ entry: OutboxEntry) async throws {
        try await writer.write { db in try OutboxRow(entry).update(db) }
    }

    func find(id: Int64) async throws -> OutboxEntry? {
        try await writer.read { db in try OutboxRow.fetchOne(db, key: id)?.value }
    }

    func list(limit: Int) async throws -> [OutboxEntry] {
        try await writer.read { db in try OutboxRow.order(Column("id").desc).limit(limit).values(db) }
    }

    func pendingCount() async throws -> Int {
        try await writer.read { db in
            try OutboxRow.filter([Self.pending, Self.deferred].contains(Column("status"))).fetchCount(db)
        }
    }

    func oldestWaiting() async throws -> Date? {
        try await writer.read { db in
            try Date.fetchOne(
                db, sql: "SELECT min(createdAt) FROM outbox WHERE status IN (?, ?)", arguments: [Self.pending, Self.deferred])
        }
    }

    func deferWaiting(because reason: String, at now: Date, pauses: [TimeInterval]) async throws -> Date {
        try await writer.write { db in
            let run = try Int.fetchOne(
                db, sql: "SELECT max(deferrals) FROM outbox WHERE status IN (?, ?)", arguments: [Self.pending, Self.deferred])
            let until = now + MailDelivery.pause(after: (run ?? 0) + 1, in: pauses)
            try db.execute(
                sql: """
                    UPDATE outbox SET status = ?, lastError = ?, deferrals = deferrals + 1,
                        nextAttemptAt = max(nextAttemptAt, ?)
                    WHERE status IN (?, ?)
                    """,
                arguments: [Self.deferred, reason, until, Self.pending, Self.deferred])
            return until
        }
    }

    func resumeDeferred(at now: Date, relayWorks: Bool) async throws -> Int {
        try await writer.write { db in
            try db.execute(
                sql: "UPDATE outbox SET status = ?, nextAttemptAt = ? WHERE status = ?",
                arguments: [Self.pending, now, Self.deferred])
            let resumed = db.changesCount
            if relayWorks {
                try db.execute(
                    sql: "UPDATE outbox SET deferrals = 0 WHERE status = ? AND deferrals > 0", arguments: [Self.pending])
            }
            return resumed
        }
    }

    func relayPausedUntil() async throws -> Date? {
        try await writer.read { db in
            try Date.fetchOne(db, sql: "SELECT min(nextAttemptAt) FROM outbox WHERE status = ?", arguments: [Self.deferred])
        }
    }

    func forgetBodies(at now: Date) async throws -> Int {
        try await writer.write { db in
            try db.execute(
                sql: """
                    UPDATE outbox SET status = ?, text = NULL, html = NULL,
                        lastError = ? || CASE WHEN lastError IS NULL THEN '' ELSE ' (it waited: ' || lastError || ')' END
                    WHERE status IN (?, ?) AND bodyExpiresAt <= ?
                    """,
                arguments: [
                    OutboxEntry.Status.failed.rawValue, MailDelivery.expiredBeforeDelivery, Self.pending, Self.deferred, now,
                ])
            let expired = db.changesCount
            let cleared = try OutboxRow.filter(Column("text") != nil || Column("html") != nil)
                .filter(
                    [OutboxEntry.Status.sent.rawValue, OutboxEntry.Status.suppressed.rawValue].contains(Column("status"))
                        || Column("bodyExpiresAt") <= now
                )
                .updateAll(db, Column("text").set(to: nil), Column("html").set(to: nil))
            return expired + cleared
        }
    }

    /// `secure_delete` (set on every connection) zeroes what an update frees in the database file; a truncating
    /// checkpoint then copies the cleared pages home and empties the WAL, where the old page images would remain.
    /// Best effort: a reader still holding an old snapshot makes SQLite stop early, and the next pass finishes it.
    func scrub() async throws { try await writer.truncateLog() }
}
