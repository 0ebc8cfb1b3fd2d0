import CaptureCore
import Foundation
import GRDB

/// A row of `users` and its mapping to and from `User`: the profile as JSON text.
struct UserRow: StoredRow, PersistableRecord {
    static let databaseTableName = "users"
    let value: User

    init(_ value: User) {
        self.value = value
    }

    init(row: Row) throws {
        var user = User(id: row["id"], email: row["email"], passwordHash: row["passwordHash"], createdAt: row["createdAt"])
        user.number = row["number"]
        user.profile = StoredJSON.object(row["profile"] ?? "{}") ?? [:]
        user.lastElementID = row["lastElementID"] ?? 0
        user.emailVerifiedAt = row["emailVerifiedAt"]
        user.updatedAt = row["updatedAt"]
        user.lastLoginAt = row["lastLoginAt"]
        user.disabledAt = row["disabledAt"]
        user.deleteRequestedAt = row["deleteRequestedAt"]
        value = user
    }

    func encode(to container: inout PersistenceContainer) throws {
        container["id"] = value.id
        container["number"] = value.number
        container["email"] = value.email
        container["passwordHash"] = value.passwordHash
        container["profile"] = StoredJSON.text(value.profile)
        container["lastElementID"] = value.lastElementID
        container["emailVerifiedAt"] = value.emailVerifiedAt
        container["createdAt"] = value.createdAt
        container["updatedAt"] = value.updatedAt
        container["lastLoginAt"] = value.lastLoginAt
        container["disabledAt"] = value.disabledAt
        container["deleteRequestedAt"] = value.deleteRequestedAt
    }
}

/// The hot paths' reads select these columns by name and decode them by position: a lookup by name lower-cases the
/// name and searches the statement's columns, for each column of each row.
extension UserRow {
    static let selection = """
        users.id, users.email, users.passwordHash, users.createdAt, users.number, users.profile, users.lastElementID,
        users.emailVerifiedAt, users.updatedAt, users.lastLoginAt, users.disabledAt, users.deleteRequestedAt
        """
    static let selectionCount = 12

    /// A user from `selection`'s columns, the first at `start`; without `parsingProfile`, its profile is left empty
    /// (see `storedProfile`).
    static func user(_ row: SelectedColumns, at start: Int, parsingProfile: Bool = true) -> User {
        func date(_ offset: Int) -> Date? { (row[start + offset] as StoredInstant?)?.date }
        let created: StoredInstant = row[start + 3]
        var user = User(id: row[start], email: row[start + 1], passwordHash: row[start + 2], createdAt: created.date)
        user.number = row[start + 4]
        if parsingProfile { user.profile = StoredJSON.object(storedProfile(row, at: start)) ?? [:] }
        user.lastElementID = row[start + 6] ?? 0
        user.emailVerifiedAt = date(7)
        user.updatedAt = (row[start + 8] as StoredInstant).date
        user.lastLoginAt = date(9)
        user.disabledAt = date(10)
        user.deleteRequestedAt = date(11)
        return user
    }

    /// The stored profile's text among `selection`'s columns, the first at `start`.
    static func storedProfile(_ row: SelectedColumns, at start: Int) -> String {
        row[start + 5] ?? "{}"
    }
}
