import CaptureCore
import GRDB

/// Janrain's client settings in SQLite: `default_settings` and `client_settings` (`SettingRows`).
struct SQLiteClientSettingsRepository: ClientSettingsRepository {
    let writer: MeteredDatabase

    func values(of scope: SettingsScope) async throws -> [String: String] {
        try await writer.read { db in try Self.values(of: scope, db) }
    }

    func allClientValues() async throws -> [String: [String: String]] {
        try await writer.read { db in
            try ClientSettingRow.fetchAll(db).reduce(into: [:]) { all, row in all[row.clientID, default: [:]][row.key] = row.value
            }
        }
    }

    func change(_ scope: SettingsScope, set values: [String: String], removing: Set<String>) async throws -> Set<String> {
        try await writer.write { db in
            if case .client(let id) = scope, try ClientRow.filter(key: id).fetchCount(db) == 0 {
                throw CaptureError.recordNotFound("client '\(id)'")
            }
            let before = Set(try Self.values(of: scope, db).keys)
            for (key, value) in values {
                switch scope {
                case .defaults: try DefaultSettingRow(key: key, value: value).save(db)
                case .client(let id): try ClientSettingRow(clientID: id, key: key, value: value).save(db)
                }
            }
            for key in removing {
                switch scope {
                case .defaults: try DefaultSettingRow.deleteOne(db, key: key)
                case .client(let id): try ClientSettingRow.deleteOne(db, key: ["clientID": id, "key": key])
                }
            }
            return before.intersection(Set(values.keys).union(removing))
        }
    }

    private static func values(of scope: SettingsScope, _ db: Database) throws -> [String: String] {
        switch scope {
        case .defaults:
            return Dictionary(try DefaultSettingRow.fetchAll(db).map { ($0.key, $0.value) }) { first, _ in first }
        case .client(let id):
            return Dictionary(
                try ClientSettingRow.filter(Column("clientID") == id).fetchAll(db).map { ($0.key, $0.value) }
            ) { first, _ in first }
        }
    }
}
