import CaptureCore
import Foundation
import GRDB

/// The SQLite file's records for `capturectl db copy`, read and written through the tables' row types (`Rows/`).
public struct SQLiteRecordCopy: RecordCopying {
    let writer: any DatabaseWriter

    public init(_ writer: any DatabaseWriter) {
        self.writer = writer
    }

    public func count(_ table: CopiedTable) async throws -> Int {
        let sql =
            table == .userNumberFloor
            ? "SELECT count(*) FROM user_number_floor WHERE highest > 0" : "SELECT count(*) FROM \(table.name)"
        return try await writer.read { db in try Int.fetchOne(db, sql: sql) ?? 0 }
    }

    public func page(of table: CopiedTable, offset: Int, limit: Int) async throws -> CopiedPage {
        try await writer.read { db in
            func page<Row: StoredRow & TableRecord>(_: Row.Type, by key: String...) throws -> [Row.Value] {
                try Row.order(key.map { Column($0) }).limit(limit, offset: offset).values(db)
            }
            func settings<Row: FetchableRecord & TableRecord>(
                _: Row.Type, by keys: [String], _ setting: (Row) -> StoredSetting
            ) throws -> [StoredSetting] {
                try Row.order(keys.map { Column($0) }).limit(limit, offset: offset).fetchAll(db).map(setting)
            }
            switch table {
            case .users: return .users(try page(UserRow.self, by: "id"))
            case .userUnique: return .userUnique(try page(UniqueValueRow.self, by: "attribute", "value"))
            case .userNumberFloor:
                return .userNumberFloor(
                    try Int64.fetchAll(
                        db, sql: "SELECT highest FROM user_number_floor WHERE highest > 0 LIMIT ? OFFSET ?",
                        arguments: [limit, offset]))
            case .clients: return .clients(try page(ClientRow.self, by: "clientID"))
            case .defaultSettings:
                return .defaultSettings(
                    try settings(DefaultSettingRow.self, by: ["key"]) {
                        StoredSetting(scope: .defaults, key: $0.key, value: $0.value)
                    })
            case .clientSettings:
                return .clientSettings(
                    try settings(ClientSettingRow.self, by: ["clientID", "key"]) {
                        StoredSetting(scope: .client($0.clientID), key: $0.key, value: $0.value)
                    })
            case .tokens: return .tokens(try page(TokenRow.self, by: "id"))
            case .throttle: return .throttle(try page(ThrottleRow.self, by: "key"))
            case .codes: return .codes(try page(CodeRow.self, by: "id"))
            case .outbox: return .outbox(try page(OutboxRow.self, by: "id"))
            case .socialLogins: return .socialLogins(try page(SocialLoginRow.self, by: "id"))
            case .identities: return .identities(try page(IdentityRow.self, by: "provider", "subject"))
            case .providerRevocations: return .providerRevocations(try page(ProviderRevocationRow.self, by: "id"))
            case .passkeys: return .passkeys(try page(PasskeyRow.self, by: "credentialID"))
            case .ceremonies: return .ceremonies(try page(CeremonyRow.self, by: "hash"))
            case .secondFactors: return .secondFactors(try page(SecondFactorRow.self, by: "userID"))
            case .oidcGrants: return .oidcGrants(try page(OIDCGrantRow.self, by: "chainID"))
            case .adminKeys: return .adminKeys(try page(AdminKeyRow.self, by: "id"))
            case .signingKeys: return .signingKeys(try page(SigningKeyRow.self, by: "kid"))
            case .auditLog: return .auditLog(try page(AuditRow.self, by: "id"))
            case .webhookSubscriptions: return .webhookSubscriptions(try page(WebhookSubscriptionRow.self, by: "id"))
            case .webhookEvents: return .webhookEvents(try page(WebhookEventRow.self, by: "id"))
            case .webhookAttempts: return .webhookAttempts(try page(WebhookAttemptRow.self, by: "id"))
            }
        }
    }

    public func insert(_ page: CopiedPage) async throws {
        try await writer.write { db in
            func insert<Row: StoredRow & MutablePersistableRecord>(_: Row.Type, _ values: [Row.Value]) throws {
                for value in values {
                    var row = Row(value)
                    try row.insert(db)
                }
            }
            switch page {
            case .users(let values): try insert(UserRow.self, values)
            case .userUnique(let values): try insert(UniqueValueRow.self, values)
            case .userNumberFloor(let values):
                // The table holds its one row from the start (and inserted users have raised it): raised, not added.
                for highest in values {
                    try db.execute(
                        sql: "UPDATE user_number_floor SET highest = MAX(highest, ?)", arguments: [highest])
                }
            case .clients(let values): try insert(ClientRow.self, values)
            case .defaultSettings(let values):
                for setting in values { try DefaultSettingRow(key: setting.key, value: setting.value).insert(db) }
            case .clientSettings(let values):
                for setting in values {
                    guard case .client(let clientID) = setting.scope else {
                        throw CaptureError.unexpected("a default setting among the clients' own")
                    }
                    try ClientSettingRow(clientID: clientID, key: setting.key, value: setting.value).insert(db)
                }
            case .tokens(let values): try insert(TokenRow.self, values)
            case .throttle(let values): try insert(ThrottleRow.self, values)
            case .codes(let values): try insert(CodeRow.self, values)
            case .outbox(let values): try insert(OutboxRow.self, values)
            case .socialLogins(let values): try insert(SocialLoginRow.self, values)
            case .identities(let values): try insert(IdentityRow.self, values)
            case .providerRevocations(let values): try insert(ProviderRevocationRow.self, values)
            case .passkeys(let values): try insert(PasskeyRow.self, values)
            case .ceremonies(let values): try insert(CeremonyRow.self, values)
            case .secondFactors(let values): try insert(SecondFactorRow.self, values)
            case .oidcGrants(let values): try insert(OIDCGrantRow.self, values)
            case .adminKeys(let values): try insert(AdminKeyRow.self, values)
            case .signingKeys(let values): try insert(SigningKeyRow.self, values)
            case .auditLog(let values): try insert(AuditRow.self, values)
            case .webhookSubscriptions(let values): try insert(WebhookSubscriptionRow.self, values)
            case .webhookEvents(let values): try insert(WebhookEventRow.self, values)
            case .webhookAttempts(let values): try insert(WebhookAttemptRow.self, values)
            }
        }
    }

    /// SQLite gives the next rowid after the largest: nothing to do.
    public func finishCopy() async throws {}
}
