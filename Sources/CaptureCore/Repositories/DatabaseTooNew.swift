/// The database was migrated by a newer build: its `unknownMigrations` are steps this build does not have.
public struct DatabaseTooNew: Error, CustomStringConvertible {
    /// What `capturectl` and `capture-server` exit with when they refuse such a file (README, "capturectl").
    public static let exitCode: Int32 = 3

    /// The file or the server and database (without a password).
    public let database: String
    public let unknownMigrations: [String]

    public init(database: String, unknownMigrations: [String]) {
        self.database = database
        self.unknownMigrations = unknownMigrations
    }

    public var description: String {
        "the database \(database) was migrated by a newer version of capture-bridge (unknown migrations: "
            + "\(unknownMigrations.joined(separator: ", "))); use that version, or restore a backup made for this one"
    }
}
