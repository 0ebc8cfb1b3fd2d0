import Logging

/// How the server writes its log lines.
public enum LogFormat: String, Sendable, Equatable, CaseIterable {
    /// swift-log's default stream handler: `time level label: [metadata] message`.
    case text
    /// One JSON object per line: `time`, `level`, `label`, `message`, `metadata`.
    case json
}

extension ServiceSettings {
    /// `logLevel` and `requestLogLevel` (swift-log's names, `trace` … `critical`); the problem names the choices.
    static func parseLogLevel(_ raw: String, file: String, key: String) throws -> Logger.Level {
        guard let level = Logger.Level(rawValue: raw.lowercased()) else {
            let names = Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")
            throw SettingsError(file: file, key: key, problem: "'\(raw)' is not one of \(names)")
        }
        return level
    }

    static func parseLogFormat(_ raw: String, file: String, key: String) throws -> LogFormat {
        guard let format = LogFormat(rawValue: raw.lowercased()) else {
            throw SettingsError(file: file, key: key, problem: "'\(raw)' is not 'text' or 'json'")
        }
        return format
    }

    /// The operations settings' ranges (part of `validate(file:)`).
    func validateOperations(file: String) throws {
        guard purgeIntervalMinutes >= 0, purgeIntervalMinutes <= 7 * 24 * 60 else {
            throw SettingsError(
                file: file, key: "purgeIntervalMinutes",
                problem: "must be between 0 (no purge) and 10080 (a week), got \(purgeIntervalMinutes)")
        }
        guard shutdownGraceSeconds >= 0, shutdownGraceSeconds <= 600 else {
            throw SettingsError(
                file: file, key: "shutdownGraceSeconds",
                problem: "must be between 0 and 600 (ten minutes), got \(shutdownGraceSeconds)")
        }
    }
}
