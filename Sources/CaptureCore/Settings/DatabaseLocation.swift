import Foundation

/// Where the service keeps its data, as `--db`, `CAPTURE_DB` or the settings' `database` name it: a SQLite file (a
/// path, or a `sqlite:` URL; the default) or a PostgreSQL server (`postgres://` or `postgresql://`, libpq's URL
/// shape). The description never shows a password.
public enum DatabaseLocation: Sendable, Equatable, CustomStringConvertible {
    case sqlite(path: String)
    case postgres(PostgresLocation)

    /// Parses `text`. A PostgreSQL URL without a user or password takes them from `PGUSER` / `PGPASSWORD` in
    /// `environment` (as libpq does), so a password need not be written into a settings file or a command line.
    public init(_ text: String, environment: [String: String] = [:]) throws {
        let lowered = text.lowercased()
        if lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://") {
            self = .postgres(try PostgresLocation(url: text, environment: environment))
        } else if lowered.hasPrefix("sqlite:") {
            // sqlite:relative/path, sqlite:/absolute/path and sqlite:///absolute/path
            var path = Substring(text.dropFirst("sqlite:".count))
            if path.hasPrefix("//") { path = path.dropFirst(2) }
            guard !path.isEmpty else {
                throw DatabaseLocationError("a sqlite: URL needs a file path, e.g. sqlite:.data/capture.sqlite")
            }
            self = .sqlite(path: String(path))
        } else if let scheme = text.firstRange(of: "://") {
            throw DatabaseLocationError(
                "'\(text[..<scheme.lowerBound])' databases are not supported: use a file path, sqlite: or postgres://")
        } else {
            guard !text.isEmpty else { throw DatabaseLocationError("must not be empty") }
            self = .sqlite(path: text)
        }
    }

    public var description: String {
        switch self {
        case .sqlite(let path): return path
        case .postgres(let location): return location.description
        }
    }
}

/// A PostgreSQL server and database, from a URL such as
/// `postgres://capture@db.internal:5432/capture?sslmode=verify-full&pool_max=20`.
public struct PostgresLocation: Sendable, Equatable, CustomStringConvertible {
    /// libpq's `sslmode` values and meanings (`allow` and `verify-ca` aside).
    public enum TLSMode: String, Sendable, Equatable, CaseIterable {
        /// Plain TCP (loopback, or a network the operator trusts).
        case disable
        /// TLS when the server offers it, its certificate not checked (libpq's default).
        case prefer
        /// TLS or no connection, the certificate not checked: encryption without proof of the server's identity.
        case require
        /// TLS, and the server's certificate verified against the system's roots and its host name.
        case verifyFull = "verify-full"
    }

    public var host: String
    public var port: Int
    /// A directory holding the server's Unix socket (`?host=/run/postgresql`); then `host` is unused.
    public var socketDirectory: String?
    public var user: String
    public var password: String?
    public var database: String
    /// The schema the service's tables live in (`schema`, PostgreSQL's search path for its connections; created at
    /// first start), so that deployments can share one database; nil for the role's own search path (`public`).
    public var schema: String?
    public var tls: TLSMode
    /// Connections this process may open at most (`pool_max`, `defaultMaxConnections`).
    public var maxConnections: Int
    /// How long a connection may sit unused before it is closed (`pool_idle_seconds`, `defaultIdleSeconds`).
    public var idleSeconds: Int
    /// How long opening a connection may take, the server's first answers included (`connect_timeout`, libpq's
    /// name, default 10).
    public var connectTimeoutSeconds: Int = 10

    public static let defaultMaxConnections = 20
    /// Short: each hand-back of a connection nobody waits for holds a few hundred bytes for this long
    /// (`PostgresDatabase`).
    public static let defaultIdleSeconds = 10

    public init(
        host: String = "127.0.0.1", port: Int = 5432, socketDirectory: String? = nil, user: String,
        password: String?, database: String, schema: String? = nil, tls: TLSMode = .prefer,
        maxConnections: Int = defaultMaxConnections, idleSeconds: Int = defaultIdleSeconds
    ) {
        self.host = host
        self.port = port
        self.socketDirectory = socketDirectory
        self.user = user
        self.password = password
        self.database = database
        self.schema = schema
        self.tls = tls
        self.maxConnections = maxConnections
        self.idleSeconds = idleSeconds
    }

    public init(url text: String, environment: [String: String] = [:]) throws {
        guard let components = URLComponents(string: text) else {
            throw DatabaseLocationError("is not a URL (percent-encode special characters in the user and password)")
        }
        var query: [String: String] = [:]
        for item in components.queryItems ?? [] { query[item.name] = item.value ?? "" }
        let known: Set = [
            "sslmode", "pool_max", "pool_idle_seconds", "connect_timeout", "host", "port", "user", "password", "dbname",
            "schema",
        ]
        if let unknown = query.keys.sorted().first(where: { !known.contains($0) }) {
            throw DatabaseLocationError("unknown parameter '\(unknown)' (known: \(known.sorted().joined(separator: ", ")))")
        }
        func nonEmpty(_ value: String?) -> String? { value.flatMap { $0.isEmpty ? nil : $0 } }
        let hostParameter = nonEmpty(query["host"])
        let socketDirectory = hostParameter.flatMap { $0.hasPrefix("/") ? $0 : nil }
        let host = nonEmpty(components.host) ?? (socketDirectory == nil ? hostParameter : nil) ?? "127.0.0.1"
        let portText = nonEmpty(query["port"]) ?? components.port.map(String.init)
        let port =
            try portText.map { text -> Int in
                guard let port = Int(text), (1...65535).contains(port) else {
                    throw DatabaseLocationError("port '\(text)' is not between 1 and 65535")
                }
                return port
            } ?? 5432
        guard let user = nonEmpty(components.user) ?? nonEmpty(query["user"]) ?? nonEmpty(environment["PGUSER"]) else {
            throw DatabaseLocationError("needs a user: postgres://USER@host/database, or PGUSER in the environment")
        }
        let password = components.password ?? query["password"] ?? environment["PGPASSWORD"]
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        guard let database = nonEmpty(path) ?? nonEmpty(query["dbname"]) else {
            throw DatabaseLocationError("needs a database name: postgres://user@host/DATABASE")
        }
        guard let tls = TLSMode(rawValue: query["sslmode"] ?? TLSMode.prefer.rawValue) else {
            let modes = TLSMode.allCases.map(\.rawValue).joined(separator: ", ")
            throw DatabaseLocationError("sslmode must be one of \(modes), got '\(query["sslmode"] ?? "")'")
        }
        var maxConnections = Self.defaultMaxConnections
        if let text = query["pool_max"] {
            guard let value = Int(text), (1...1000).contains(value) else {
                throw DatabaseLocationError("pool_max must be between 1 and 1000, got '\(text)'")
            }
            maxConnections = value
        }
        var idleSeconds = Self.defaultIdleSeconds
        if let text = query["pool_idle_seconds"] {
            guard let value = Int(text), (1...86_400).contains(value) else {
                throw DatabaseLocationError("pool_idle_seconds must be between 1 and 86400, got '\(text)'")
            }
            idleSeconds = value
        }
        let schema = nonEmpty(query["schema"])
        if let schema, !Self.isPlainName(schema) || schema.hasPrefix("pg_") {
            throw DatabaseLocationError(
                "schema must be a plain lower-case name (a–z, 0–9, _; at most 63; not starting with a digit or pg_), "
                    + "got '\(schema)'")
        }
        self.init(
            host: host, port: port, socketDirectory: socketDirectory, user: user, password: password,
            database: database, schema: schema, tls: tls, maxConnections: maxConnections, idleSeconds: idleSeconds)
        if let text = query["connect_timeout"] {
            guard let value = Int(text), (1...600).contains(value) else {
                throw DatabaseLocationError("connect_timeout must be between 1 and 600 seconds, got '\(text)'")
            }
            connectTimeoutSeconds = value
        }
    }

    /// The URL without the password.
    public var description: String {
        let parameters = [socketDirectory.map { "host=\($0)" }, schema.map { "schema=\($0)" }].compactMap { $0 }
        let address = socketDirectory == nil ? "\(host):\(port)" : ""
        let query = parameters.isEmpty ? "" : "?" + parameters.joined(separator: "&")
        return "postgres://\(user)@\(address)/\(database)\(query)"
    }

    /// A name PostgreSQL takes unquoted and as written: it goes into SQL and the search path as it is.
    static func isPlainName(_ name: String) -> Bool {
        guard let first = name.utf8.first, name.utf8.count <= 63, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first)
        else { return false }
        return name.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "_")
        }
    }
}

/// Why a database location was refused; the settings report it under the key that named it.
public struct DatabaseLocationError: Error, Sendable, Equatable, CustomStringConvertible {
    public let problem: String

    public init(_ problem: String) { self.problem = problem }

    public var description: String { problem }
}

extension ServiceSettings {
    /// `database` parsed, with PostgreSQL credentials missing from it taken from `environment` (`PGUSER`,
    /// `PGPASSWORD`); a refusal names the settings key.
    public func databaseLocation(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> DatabaseLocation {
        do {
            return try DatabaseLocation(database, environment: environment)
        } catch let error as DatabaseLocationError {
            throw SettingsError(file: "(settings)", key: "database", problem: error.problem)
        }
    }
}
