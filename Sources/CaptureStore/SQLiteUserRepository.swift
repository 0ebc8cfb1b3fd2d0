import CaptureCore
import GRDB

/// Users in SQLite; the unique index on `email` (case-insensitive) settles races between registrations.
struct SQLiteUserRepository: UserRepository {
    let writer: any DatabaseWriter

    func insert(_ user: User) async throws {
        try await writeMappingDuplicates { db in try user.insert(db) }
    }

    func update(_ user: User) async throws {
        try await writeMappingDuplicates { db in try user.update(db) }
    }

    func find(id: String) async throws -> User? {
        try await writer.read { db in try User.fetchOne(db, key: id) }
    }

    func find(email: String) async throws -> User? {
        try await writer.read { db in try User.filter(Column("email") == email).fetchOne(db) }
    }

    func list(limit: Int, offset: Int) async throws -> [User] {
        try await writer.read { db in
            try User.order(Column("createdAt"), Column("id")).limit(limit, offset: offset).fetchAll(db)
        }
    }

    func delete(id: String) async throws -> Bool {
        // tokens.userID references users ON DELETE CASCADE (foreign keys are on): one statement removes both.
        try await writer.write { db in try User.deleteOne(db, key: id) }
    }

    private func writeMappingDuplicates(_ body: @escaping @Sendable (Database) throws -> Void) async throws {
        do {
            try await writer.write(body)
        } catch let error as DatabaseError where error.isUniqueViolation {
            throw CaptureError.emailAddressInUse(field: "email")
        }
    }
}
