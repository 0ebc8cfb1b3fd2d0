import CaptureCore
import GRDB

/// Clients in SQLite, as `ClientRow`s.
struct SQLiteClientRepository: ClientRepository {
    let writer: MeteredDatabase

    func upsert(_ client: Client) async throws {
        try await writer.write { db in try ClientRow(client).save(db) }
    }

    func insert(_ client: Client) async throws {
        do {
            try await writer.write { db in try ClientRow(client).insert(db) }
        } catch let error as DatabaseError
            where error.isUniqueViolation || error.extendedResultCode == .SQLITE_CONSTRAINT_PRIMARYKEY
        {
            throw CaptureError.notPermitted("client '\(client.clientID)' already exists")
        }
    }

    func find(id: String) async throws -> Client? {
        // Every flow page looks its client up: a cached statement skips SQL generation and authorization.
        try await writer.statementRead { db in
            try ClientRow.fetchOne(try db.cachedStatement(sql: "SELECT * FROM clients WHERE clientID = ?"), arguments: [id])?
                .value
        }
    }

    func version() async throws -> Int64 {
        try await writer.statementRead { db in try Self.version(db) }
    }

    /// The clients' change counter (migration v8's triggers), read inside a caller's transaction too.
    /// The clients' version; token lookups read it in their own statement, as a subquery.
    static let versionQuery = "SELECT version FROM change_counters WHERE name = 'clients'"

    static func version(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(try db.cachedStatement(sql: versionQuery)) ?? 0
    }

    func list() async throws -> [Client] {
        try await writer.read { db in try ClientRow.order(Column("clientID")).values(db) }
    }

    func delete(id: String) async throws -> Bool {
        try await writer.write { db in try ClientRow.deleteOne(db, key: id) }
    }
}
