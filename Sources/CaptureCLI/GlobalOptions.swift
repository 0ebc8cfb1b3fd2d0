import ArgumentParser
import CaptureCore
import CaptureStorage
import Foundation

/// Options every leaf command takes.
public struct GlobalOptions: ParsableArguments, Sendable {
    @Option(
        help: ArgumentHelp(
            "SQLite database file or postgres:// URL (default: $CAPTURE_DB, else the settings' database, else \(ServiceSettings.defaultDatabase)).",
            valueName: "path-or-url"))
    public var db: String?

    @Option(
        help: ArgumentHelp(
            "Settings directory holding service.json, forms.json and flows/ (default: $CAPTURE_SETTINGS, else Settings).",
            valueName: "dir"))
    public var settings: String?

    @Flag(help: "Print JSON instead of a table.")
    public var json = false

    @Option(
        help: ArgumentHelp(
            "Work through the admin API at this URL instead of on the database file; the key comes from $CAPTURE_ADMIN_KEY.",
            valueName: "url"))
    public var server: String?

    public init() {}

    var environment: [String: String] { ProcessInfo.processInfo.environment }

    /// The settings directory: the flag, else `CAPTURE_SETTINGS`, else `Settings`.
    var settingsDirectory: URL {
        URL(fileURLWithPath: settings ?? nonEmpty(environment["CAPTURE_SETTINGS"]) ?? "Settings")
    }

    /// Settings and flow catalog: from the settings directory when it has a `service.json`, else defaults
    /// (so `capturectl --db x token list` works anywhere).
    func loadConfiguration() throws -> (ServiceSettings, FlowCatalog) {
        try refuseServer()
        let directory = settingsDirectory
        if FileManager.default.fileExists(atPath: directory.appendingPathComponent("service.json").path) {
            // flags > CAPTURE_DB > the file's `database` > default, exactly as capture-server resolves it.
            let resolved = try ServiceSettings.resolve(
                directory: directory, flags: SettingsOverrides(database: db), environment: environment)
            return (resolved, try FlowCatalog.load(directory: directory))
        }
        if settings != nil || nonEmpty(environment["CAPTURE_SETTINGS"]) != nil {
            // A directory the operator named must be there; only the implicit default may be absent.
            throw SettingsError(
                file: directory.appendingPathComponent("service.json").path, key: "(file)", problem: "does not exist")
        }
        var defaults = ServiceSettings()
        defaults.database = db ?? nonEmpty(environment["CAPTURE_DB"]) ?? ServiceSettings.defaultDatabase
        return (defaults, FlowCatalog(schema: .emailOnly, fields: [:], forms: [:], flows: [:]))
    }

    /// Opens the database, builds the features on it (the CLI never hashes passwords, so bcrypt runs at the lowest
    /// cost), runs `body` and closes the database however `body` ends: on SQLite the WAL is checkpointed into the file
    /// first (a copy of the file alone is then whole), and PostgreSQL's connections end with a goodbye rather than
    /// with the process. A database file that does not exist is refused (a mistyped `--db` must not create an
    /// empty one), unless the command writes the first record (`client add`).
    func withOpenedFeatures<T>(creatingDatabase: Bool = false, _ body: (CaptureFeatures) async throws -> T) async throws -> T {
        var (resolved, catalog) = try loadConfiguration()
        resolved.bcryptCost = 10
        let location = try resolved.databaseLocation(environment: environment)
        if case .sqlite(let path) = location, !creatingDatabase, !FileManager.default.fileExists(atPath: path) {
            throw CaptureError.recordNotFound("database file '\(path)'")
        }
        // The deployment's code key, as the server loads it: the secrets capturectl makes are sealed under it (for
        // Janrain-signed requests) and its erasures' audit pseudonyms are the server's.
        let codeKey = try CodeKey.load(environment: environment, file: resolved.codeKeyFile)
        let storage = try await OpenedStorage.open(location)
        let result: Result<T, any Error>
        do {
            let features = await CaptureFeatures.make(
                settings: resolved, catalog: catalog, store: storage.repositories, codeKey: codeKey)
            result = .success(try await body(features))
        } catch {
            result = .failure(error)
        }
        // The command's outcome is what counts; a close that fails changes nothing the command did.
        try? await storage.close()
        return try result.get()
    }

    /// Runs `body` with the features on the database file, turning refusals into a message on stderr and exit code 1.
    /// These commands have no remote mode: `--server` is a usage error.
    func withFeatures(
        creatingDatabase: Bool = false, _ body: (CaptureFeatures, Output) async throws -> Void
    ) async throws {
        try refuseServer()
        let output = Output(json: json)
        try await Output.guarding {
            try await withOpenedFeatures(creatingDatabase: creatingDatabase) { features in try await body(features, output) }
        }
    }

    /// Runs `body` with the operator's console: over the admin API with `--server`, else on the database file as
    /// the operating-system user (whose actions the audit log records). Both print and exit alike.
    func withConsole(creatingDatabase: Bool = false, _ body: (any AdminConsole, Output) async throws -> Void) async throws {
        let output = Output(json: json)
        try await Output.guarding {
            if let server {
                try await body(try RemoteAdminConsole(server: server, key: environment["CAPTURE_ADMIN_KEY"]), output)
            } else {
                try await withOpenedFeatures(creatingDatabase: creatingDatabase) { features in
                    try await body(DatabaseAdminConsole(features: features, actor: .currentOperator), output)
                }
            }
        }
    }

    /// Commands that read the settings or the database file themselves have no remote mode (a usage error).
    func refuseServer() throws {
        if server != nil {
            throw ValidationError(
                "this command works on the database file and settings only (--db, --settings); it has no --server mode")
        }
    }

    private func nonEmpty(_ value: String?) -> String? {
        guard let value, !value.isEmpty else { return nil }
        return value
    }
}
