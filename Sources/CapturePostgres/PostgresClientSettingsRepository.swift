import CaptureCore
import PostgresNIO

/// Janrain's client settings in PostgreSQL: `default_settings` and `client_settings`. Changes run in a transaction,
/// whose triggers bump the clients version and tell it to this instance before it answers.
struct PostgresClientSettingsRepository: ClientSettingsRepository {
    let store: PostgresStore

    func values(of scope: SettingsScope) async throws -> [String: String] {
        try Self.values(try await store.query(Self.select(scope)))
    }

    func allClientValues() async throws -> [String: [String: String]] {
        try await store.query("SELECT client_id, key, value FROM client_settings").reduce(into: [:]) { all, row in
            let c = Columns(row)
            all[try c("client_id", as: String.self), default: [:]][try c("key")] = try c("value", as: String.self)
        }
    }

    func change(_ scope: SettingsScope, set values: [String: String], removing: Set<String>) async throws -> Set<String> {
        try await store.transaction { connection in
            if case .client(let id) = scope,
                try await connection.rows("SELECT 1 FROM clients WHERE client_id = \(id) FOR UPDATE").isEmpty
            {
                throw CaptureError.recordNotFound("client '\(id)'")
            }
            let before = Set(try Self.values(try await connection.rows(Self.select(scope))).keys)
            for (key, value) in values.sorted(by: { $0.key < $1.key }) {
                switch scope {
                case .defaults:
                    try await connection.rows(
                        """
                        INSERT INTO default_settings (key, value) VALUES (\(key), \(value))
                        ON CONFLICT (key) DO UPDATE SET value = excluded.value
                        """)
                case .client(let id):
                    try await connection.rows(
                        """
                        INSERT INTO client_settings (client_id, key, value) VALUES (\(id), \(key), \(value))
                        ON CONFLICT (client_id, key) DO UPDATE SET value = excluded.value
                        """)
                }
            }
            if !removing.isEmpty {
                let keys = removing.sorted()
                switch scope {
                case .defaults: try await connection.rows("DELETE FROM default_settings WHERE key = ANY(\(keys))")
                case .client(let id):
                    try await connection.rows("DELETE FROM client_settings WHERE client_id = \(id) AND key = ANY(\(keys))")
                }
            }
            return before.intersection(Set(values.keys).union(removing))
        }
    }

    private static func select(_ scope: SettingsScope) -> PostgresQuery {
        switch scope {
        case .defaults: "SELECT key, value FROM default_settings"
        case .client(let id): "SELECT key, value FROM client_settings WHERE client_id = \(id)"
        }
    }

    private static func values(_ rows: [PostgresRow]) throws -> [String: String] {
        try rows.reduce(into: [:]) { values, row in
            let c = Columns(row)
            values[try c("key", as: String.self)] = try c("value", as: String.self)
        }
    }
}
