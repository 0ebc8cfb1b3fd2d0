import CaptureCache
import GRDB

/// On every connection that can write (`CaptureDatabase.open`, in the service and in capturectl alike): the rows of
/// `tokens` a transaction updates or deletes, the rows of `users` it deletes or whose id, address or standing
/// (`SQLiteUserRepository.standingColumns`) it updates, and any change to `clients` or the client settings, stamped in `ChangeStamps` before
/// the commit and again after it. Inserts are not stamped: nothing cached can depend on a row that was not there.
/// A user's other columns (the profile, `lastLoginAt`) are read afresh by whoever needs them, never kept. Only
/// SQLite's own connections are seen, so a change made to the file by other software (the `sqlite3` shell) reaches a
/// cache only when its entries are replaced; docs/operations.md says so.
final class ChangeRecorder: TransactionObserver {
    private let stamps: ChangeStamps
    private var subjects: Set<ChangeStamps.Subject> = []
    private var everything = false
    /// Past this many rows in one transaction (a purge), one stamp of everything replaces theirs.
    static let rowLimit = 4096
    /// The columns of `users` whose update is stamped (SQLite names columns case-insensitively: either spelling).
    static let userColumns: Set<String> = Set(
        (["id"] + SQLiteUserRepository.standingColumns).flatMap { [$0, $0.lowercased()] })

    /// The tables whose changes bump the clients version (migrations v8, v20): a kept check holds that version.
    static let clientTables: Set<String> = ["clients", "client_settings", "default_settings"]

    init(stamps: ChangeStamps) {
        self.stamps = stamps
    }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
        switch eventKind {
        case .insert(let table): Self.clientTables.contains(table)
        case .update("users", let columns): !columns.isDisjoint(with: Self.userColumns)
        case .update(let table, _), .delete(let table):
            table == "tokens" || table == "users" || Self.clientTables.contains(table)
        }
    }

    func databaseDidChange(with event: DatabaseEvent) {
        guard !everything else { return }
        switch event.tableName {
        case "tokens": subjects.insert(.token(rowID: event.rowID))
        case "users": subjects.insert(.user(rowID: event.rowID))
        default: everything = true
        }
        if subjects.count > Self.rowLimit { everything = true }
        if everything { subjects = [.everything] }
    }

    /// Before the commit too: a process that dies between its commit and the stamp after it has still stamped.
    func databaseWillCommit() throws {
        if !subjects.isEmpty { stamps.changed(subjects) }
    }

    func databaseDidCommit(_ db: Database) {
        if !subjects.isEmpty { stamps.changed(subjects) }
        forget()
    }

    func databaseDidRollback(_ db: Database) {
        forget()
    }

    private func forget() {
        subjects = []
        everything = false
    }
}
