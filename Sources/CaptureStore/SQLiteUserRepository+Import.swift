import CaptureCore
import GRDB

extension SQLiteUserRepository {
    /// One write transaction for the batch, a savepoint per record: a record either lands with its unique values or
    /// leaves nothing behind. Collisions are looked up by index before the insert, so each is named. Records whose
    /// number is taken are stored last, past the largest number, so they do not take a number a later record of
    /// the batch brings.
    func importBatch(_ users: [User]) async throws -> [Result<User, ImportConflict>] {
        try await writer.write { db in
            var outcomes = [Result<User, ImportConflict>?](repeating: nil, count: users.count)
            var renumber: [Int] = []
            for (index, user) in users.enumerated() {
                if let number = user.number,
                    try Int64.fetchOne(db, sql: "SELECT 1 FROM users WHERE number = ?", arguments: [number]) != nil
                {
                    renumber.append(index)
                } else {
                    outcomes[index] = try Self.imported(user, number: user.number, in: db)
                }
            }
            for index in renumber {
                let next = try Int64.fetchOne(db, sql: "SELECT IFNULL(MAX(number), 0) + 1 FROM users")
                outcomes[index] = try Self.imported(users[index], number: next, in: db)
            }
            return outcomes.map { $0! }
        }
    }

    /// Stores one record under `number` (the next free one when nil), or names what another record already holds.
    private static func imported(_ user: User, number: Int64?, in db: Database) throws -> Result<User, ImportConflict> {
        if try User.exists(db, key: user.id) { return .failure(.id) }
        if try !User.filter(Column("email") == user.email).isEmpty(db) { return .failure(.email) }
        var stored = user
        stored.number = try number ?? Int64.fetchOne(db, sql: "SELECT IFNULL(MAX(number), 0) + 1 FROM users")
        do {
            try db.inSavepoint {
                try stored.insert(db)
                try writeUniqueValues(of: stored, in: db)
                return .commit
            }
            return .success(stored)
        } catch CaptureError.schemaViolation(let violation) where violation.kind == .unique {
            return .failure(.unique(violation.path))
        }
    }
}
