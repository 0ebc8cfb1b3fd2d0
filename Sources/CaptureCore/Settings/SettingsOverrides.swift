import Foundation
import Logging

/// Values from flags or `CAPTURE_*` variables that override the settings file (flags > environment > file > defaults).
public struct SettingsOverrides: Sendable, Equatable {
    public var host: String?
    public var port: Int?
    public var database: String?
    public var publicOrigin: String?
    public var bcryptCost: Int?
    public var accessTokenLifeHours: Double?
    public var logFormat: LogFormat?
    public var logLevel: Logger.Level?

    public init(
        host: String? = nil, port: Int? = nil, database: String? = nil, publicOrigin: String? = nil,
        bcryptCost: Int? = nil, accessTokenLifeHours: Double? = nil, logFormat: LogFormat? = nil,
        logLevel: Logger.Level? = nil
    ) {
        self.host = host
        self.port = port
        self.database = database
        self.publicOrigin = publicOrigin
        self.bcryptCost = bcryptCost
        self.accessTokenLifeHours = accessTokenLifeHours
        self.logFormat = logFormat
        self.logLevel = logLevel
    }

    /// Reads `CAPTURE_HOST`, `CAPTURE_PORT`, `CAPTURE_DB`, `CAPTURE_PUBLIC_ORIGIN`, `CAPTURE_BCRYPT_COST`,
    /// `CAPTURE_ACCESS_TOKEN_LIFE_HOURS`, `CAPTURE_LOG_FORMAT`, `CAPTURE_LOG_LEVEL`; a value that does not parse is an
    /// error naming the variable.
    public static func environment(_ env: [String: String]) throws -> SettingsOverrides {
        func number<T: LosslessStringConvertible>(_ key: String, _: T.Type) throws -> T? {
            guard let raw = env[key], !raw.isEmpty else { return nil }
            guard let value = T(raw) else {
                throw SettingsError(file: "(environment)", key: key, problem: "'\(raw)' is not a number")
            }
            return value
        }
        return SettingsOverrides(
            host: env["CAPTURE_HOST"].flatMap { $0.isEmpty ? nil : $0 },
            port: try number("CAPTURE_PORT", Int.self),
            database: env["CAPTURE_DB"].flatMap { $0.isEmpty ? nil : $0 },
            publicOrigin: env["CAPTURE_PUBLIC_ORIGIN"].flatMap { $0.isEmpty ? nil : $0 },
            bcryptCost: try number("CAPTURE_BCRYPT_COST", Int.self),
            accessTokenLifeHours: try number("CAPTURE_ACCESS_TOKEN_LIFE_HOURS", Double.self),
            logFormat: try env["CAPTURE_LOG_FORMAT"].flatMap { $0.isEmpty ? nil : $0 }.map {
                try ServiceSettings.parseLogFormat($0, file: "(environment)", key: "CAPTURE_LOG_FORMAT")
            },
            logLevel: try env["CAPTURE_LOG_LEVEL"].flatMap { $0.isEmpty ? nil : $0 }.map {
                try ServiceSettings.parseLogLevel($0, file: "(environment)", key: "CAPTURE_LOG_LEVEL")
            })
    }

    /// `self` wins over `other` where both are set.
    public func over(_ other: SettingsOverrides) -> SettingsOverrides {
        SettingsOverrides(
            host: host ?? other.host, port: port ?? other.port, database: database ?? other.database,
            publicOrigin: publicOrigin ?? other.publicOrigin, bcryptCost: bcryptCost ?? other.bcryptCost,
            accessTokenLifeHours: accessTokenLifeHours ?? other.accessTokenLifeHours, logFormat: logFormat ?? other.logFormat,
            logLevel: logLevel ?? other.logLevel)
    }

    /// Applies to settings from the file and re-validates the result.
    public func apply(to settings: ServiceSettings, source: String) throws -> ServiceSettings {
        var result = settings
        if let host { result.host = host }
        if let port { result.port = port }
        if let database { result.database = database }
        if let publicOrigin { result.publicOrigin = publicOrigin }
        if let bcryptCost { result.bcryptCost = bcryptCost }
        if let accessTokenLifeHours { result.accessTokenLifeHours = accessTokenLifeHours }
        if let logFormat { result.logFormat = logFormat }
        if let logLevel { result.logLevel = logLevel }
        try result.validate(file: source)
        return result
    }
}

extension ServiceSettings {
    /// The settings directory's `service.json` with overrides applied: flags > environment > file > defaults.
    public static func resolve(directory: URL, flags: SettingsOverrides, environment: [String: String]) throws -> ServiceSettings
    {
        let file = try ServiceSettings.load(file: directory.appendingPathComponent("service.json"))
        let overrides = flags.over(try SettingsOverrides.environment(environment))
        var settings = try overrides.apply(to: file, source: "flags/environment over \(directory.path)/service.json")
        // A secret never lives in the settings file.
        settings.smtp?.password = environment["CAPTURE_SMTP_PASSWORD"].flatMap { $0.isEmpty ? nil : $0 }
        for provider in settings.socialProviders {
            if let secret = environment[provider.secretEnvironmentName], !secret.isEmpty {
                settings.providerSecrets[provider.name] = secret
            }
        }
        return settings
    }
}
