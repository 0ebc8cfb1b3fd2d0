import CaptureCore
import Foundation
import PostgresNIO

/// The PostgreSQL database's records for `capturectl db copy`, read through the repositories' own mapping
/// (`record(_ row)`) and written by `insert(_:on:)`'s statements, ids as they were.
struct PostgresRecordCopy: RecordCopying {
    let store: PostgresStore

    func count(_ table: CopiedTable) async throws -> Int {
        let sql =
            table == .userNumberFloor
            ? "SELECT count(*) AS n FROM user_number_floor WHERE highest > 0" : "SELECT count(*) AS n FROM \(table.name)"
        return try await store.query(PostgresQuery(unsafeSQL: sql)).first.map { try Columns($0)("n", as: Int.self) } ?? 0
    }

    func page(of table: CopiedTable, offset: Int, limit: Int) async throws -> CopiedPage {
        func rows(by key: String) async throws -> [PostgresRow] {
            var binds = PostgresBindings()
            binds.append(limit)
            binds.append(offset)
            let filter = table == .userNumberFloor ? "WHERE highest > 0" : ""
            return try await store.query(
                PostgresQuery(
                    unsafeSQL: "SELECT * FROM \(table.name) \(filter) ORDER BY \(key) LIMIT $1 OFFSET $2", binds: binds))
        }
        func settings(by key: String) async throws -> [StoredSetting] {
            try await rows(by: key).map { row in
                let c = Columns(row)
                let scope: SettingsScope = table == .defaultSettings ? .defaults : .client(try c("client_id"))
                return StoredSetting(scope: scope, key: try c("key"), value: try c("value"))
            }
        }
        switch table {
        case .users: return .users(try await rows(by: "id").map { try PostgresUserRepository.record($0) })
        case .userUnique:
            return .userUnique(
                try await rows(by: "attribute, value").map { row in
                    let c = Columns(row)
                    return UniqueValueClaim(attribute: try c("attribute"), value: try c("value"), userID: try c("user_id"))
                })
        case .userNumberFloor:
            return .userNumberFloor(try await rows(by: "highest").map { try Columns($0)("highest", as: Int64.self) })
        case .clients: return .clients(try await rows(by: "client_id").map(PostgresClientRepository.record))
        case .defaultSettings: return .defaultSettings(try await settings(by: "key"))
        case .clientSettings: return .clientSettings(try await settings(by: "client_id, key"))
        case .tokens: return .tokens(try await rows(by: "id").map(PostgresTokenRepository.record))
        case .throttle:
            return .throttle(
                try await rows(by: "key").map { row in
                    let c = Columns(row)
                    return StoredThrottle(
                        key: try c("key"),
                        state: ThrottleState(
                            level: try c("level"), updatedAt: try c("updated_at"), expiresAt: try c("expires_at")))
                })
        case .codes: return .codes(try await rows(by: "id").map(PostgresCodeRepository.record))
        case .outbox: return .outbox(try await rows(by: "id").map(PostgresOutboxRepository.record))
        case .socialLogins: return .socialLogins(try await rows(by: "id").map(PostgresSocialLoginRepository.record))
        case .identities:
            return .identities(try await rows(by: "provider, subject").map(PostgresIdentityRepository.record))
        case .providerRevocations:
            return .providerRevocations(try await rows(by: "id").map(PostgresProviderRevocationRepository.record))
        case .passkeys: return .passkeys(try await rows(by: "credential_id").map(PostgresPasskeyRepository.record))
        case .ceremonies: return .ceremonies(try await rows(by: "hash").map(PostgresCeremonyRepository.record))
        case .secondFactors:
            return .secondFactors(try await rows(by: "user_id").map(PostgresSecondFactorRepository.record))
        case .oidcGrants: return .oidcGrants(try await rows(by: "chain_id").map(PostgresOIDCGrantRepository.grant))
        case .adminKeys: return .adminKeys(try await rows(by: "id").map(PostgresAdminKeyRepository.record))
        case .signingKeys: return .signingKeys(try await rows(by: "kid").map(PostgresSigningKeyRepository.record))
        case .auditLog: return .auditLog(try await rows(by: "id").map(PostgresAuditRepository.record))
        case .webhookSubscriptions:
            return .webhookSubscriptions(try await rows(by: "id").map(PostgresWebhookRepository.subscription))
        case .webhookEvents: return .webhookEvents(try await rows(by: "id").map(PostgresWebhookRepository.event))
        case .webhookAttempts:
            return .webhookAttempts(
                try await rows(by: "id").map { row in
                    StoredWebhookAttempt(id: try Columns(row)("id"), attempt: try PostgresWebhookRepository.attempt(row))
                })
        }
    }

    func insert(_ page: CopiedPage) async throws {
        try await store.transaction { connection in
            for statement in try Self.statements(page) { try await connection.rows(statement) }
        }
    }

    /// Every column that hands out ids (identity or serial) continues after the largest copied id.
    func finishCopy() async throws {
        let tables = try await store.query(
            """
            SELECT table_name::text AS name FROM information_schema.columns
            WHERE table_schema = current_schema() AND column_name = 'id'
                AND (is_identity = 'YES' OR column_default LIKE 'nextval(%')
            """
        ).map { try Columns($0)("name", as: String.self) }
        for table in tables {
            try await store.query(
                """
                SELECT setval(pg_get_serial_sequence(\(table), 'id'),
                    COALESCE((SELECT MAX(id) FROM \(unescaped: table)), 0) + 1, false)
                """)
        }
    }
}
