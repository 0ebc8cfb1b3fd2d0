import CaptureCore
import GRDB

extension SQLiteUserRepository {
    /// One write transaction for the batch. A record either lands with its unique values or leaves nothing
    /// behind (one INSERT, or a savepoint around the row and its unique values). Collisions are looked up by index
    /// before the insert, so each is named. Records whose number is taken are stored last, past the largest
    /// number, so they do not take a number a later record of the batch brings. Statements are prepared once per
    /// batch: compiling them again for every record cost as much as the writes.
    func importBatch(_ users: [User]) async throws -> [Result<User, ImportConflict>] {
        let client = ChangeOrigin.client
        return try await writer.write { db in
            var outcomes = [Result<User, ImportConflict>?](repeating: nil, count: users.count)
            var renumber: [Int] = []
            let numberTaken = try db.cachedStatement(sql: "SELECT 1 FROM users WHERE number = ?")
            for (index, user) in users.enumerated() {
                if let number = user.number, try Int64.fetchOne(numberTaken, arguments: [number]) != nil {
                    renumber.append(index)
                } else {
                    outcomes[index] = try Self.imported(user, number: user.number, in: db)
                }
            }
            for index in renumber {
                outcomes[index] = try Self.imported(users[index], number: nil, in: db)
            }
            let results = outcomes.map { $0! }
            for case .success(let stored) in results {
                try SQLiteWebhookRepository.raise(.created(stored), client: client, in: db)
            }
            return results
        }
    }

    /// Stores one record under `number` (the next free one when nil), or names what another record already holds.
    private static func imported(_ user: User, number: Int64?, in db: Database) throws -> Result<User, ImportConflict> {
        if try Int64.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM users WHERE id = ?"), arguments: [user.id]) != nil {
            return .failure(.id)
        }
        if try Int64.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM users WHERE email = ?"), arguments: [user.email]) != nil {
            return .failure(.email)
        }
        var stored = user
        stored.number = try number ?? Int64.fetchOne(db.cachedStatement(sql: SQLiteUserRepository.nextNumber))
        let unique = (stored.uniqueValues ?? [:]).sorted { $0.key < $1.key }
        if unique.isEmpty {
            try UserRow(stored).insert(db)
            return .success(stored)
        }
        var conflict: ImportConflict?
        try db.inSavepoint {
            try UserRow(stored).insert(db)
            let claim = try db.cachedStatement(
                sql: "INSERT OR IGNORE INTO user_unique (attribute, value, userID) VALUES (?, ?, ?)")
            for (attribute, value) in unique {
                try claim.execute(arguments: [attribute, value, stored.id])
                if db.changesCount == 0 {
                    conflict = .unique(attribute)
                    return .rollback
                }
            }
            return .commit
        }
        return conflict.map { .failure($0) } ?? .success(stored)
    }
}
