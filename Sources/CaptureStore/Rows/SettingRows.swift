import GRDB

/// A row of `default_settings`: one of the app's default client settings.
struct DefaultSettingRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "default_settings"

    var key: String
    var value: String
}

/// A row of `client_settings`: one of a client's own settings (removed with the client).
struct ClientSettingRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "client_settings"

    var clientID: String
    var key: String
    var value: String
}
