import Foundation

/// Reads the old Janrain app's owner client secret: from `clientSecretFile` (its first line), else from the
/// environment variable `legacyJanrain` names. Neither the secret nor its length is ever in an error or a log line.
public enum LegacyJanrainSecret {
    public static func read(_ legacy: LegacyJanrainSettings, environment: [String: String]) throws -> String {
        if let path = legacy.clientSecretFile {
            guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8)
            else {
                throw SettingsError(file: path, key: "legacyJanrain.clientSecretFile", problem: "cannot be read")
            }
            let secret =
                text.split(whereSeparator: \.isNewline).first.map(String.init)?
                .trimmingCharacters(in: .whitespaces) ?? ""
            guard !secret.isEmpty else {
                throw SettingsError(file: path, key: "legacyJanrain.clientSecretFile", problem: "holds no secret")
            }
            return secret
        }
        guard let secret = environment[legacy.secretEnvironmentName], !secret.isEmpty else {
            throw SettingsError(
                file: "environment", key: "legacyJanrain.clientSecretEnvironment",
                problem: "\(legacy.secretEnvironmentName) must hold the old app's client secret (or set clientSecretFile)")
        }
        return secret
    }
}
