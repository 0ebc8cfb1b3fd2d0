import CaptureCore
import Foundation
import Testing

/// `legacyJanrain` in service.json: read with its defaults, refused with the key named when wrong, and its secret
/// from a file or the environment only.
@Suite struct LegacyJanrainSettingsTests {
    static func load(_ legacy: String) throws -> ServiceSettings {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("legacy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data(#"{"legacyJanrain": \#(legacy)}"#.utf8).write(to: directory.appendingPathComponent("service.json"))
        return try ServiceSettings.load(file: directory.appendingPathComponent("service.json"))
    }

    static let minimal = #"""
        {"captureUrl": "https://old-app.janraincapture.com/", "clientId": "owner", "loginClientId": "login",
         "cutover": "2027-03-01T00:00:00Z"}
        """#

    @Test func readsWithItsDefaults() throws {
        let legacy = try #require(try Self.load(Self.minimal).legacyJanrain)
        #expect(legacy.base == "https://old-app.janraincapture.com")
        #expect(legacy.cutoverDate == Date(timeIntervalSince1970: 1_803_859_200))
        #expect(legacy.resolvedTimeout == 3 && legacy.resolvedConnectTimeout == 2)
        #expect(legacy.resolvedBreakerFailures == 5 && legacy.resolvedBreakerCooldown == 60)
        #expect(legacy.secretEnvironmentName == "CAPTURE_LEGACY_JANRAIN_SECRET")
        #expect(try Self.load("null").legacyJanrain == nil)
    }

    @Test func wrongValuesNameTheirKey() throws {
        for (json, key) in [
            (
                #"{"captureUrl": "http://old.example.com", "clientId": "o", "loginClientId": "l", "cutover": "2027-03-01T00:00:00Z"}"#,
                "legacyJanrain.captureUrl"
            ),
            (
                #"{"captureUrl": "http://127.0.0.1:9", "clientId": "o", "loginClientId": "l", "cutover": "2027-03-01T00:00:00Z"}"#,
                "legacyJanrain.captureUrl"
            ),
            (
                #"{"captureUrl": "https://old.example.com", "clientId": "o", "loginClientId": "l", "cutover": "March 2027"}"#,
                "legacyJanrain.cutover"
            ),
            (
                #"{"captureUrl": "https://old.example.com", "clientId": "o", "loginClientId": "l", "cutover": "2027-03-01T00:00:00Z", "timeoutSeconds": 90}"#,
                "legacyJanrain.timeoutSeconds"
            ),
            (
                #"{"captureUrl": "https://old.example.com", "clientId": "o", "loginClientId": "l", "cutover": "2027-03-01T00:00:00Z", "breakerFailures": 0}"#,
                "legacyJanrain.breakerFailures"
            ),
            (
                #"{"captureUrl": "https://old.example.com", "clientId": "", "loginClientId": "l", "cutover": "2027-03-01T00:00:00Z"}"#,
                "legacyJanrain.clientId"
            ),
            (
                #"{"captureUrl": "https://old.example.com", "loginClientId": "l", "cutover": "2027-03-01T00:00:00Z"}"#,
                "legacyJanrain.clientId"
            ),
        ] {
            let error = #expect(throws: SettingsError.self) { try Self.load(json) }
            #expect(error?.key == key, "\(json)")
        }
        let loopback = try Self.load(
            #"{"captureUrl": "http://127.0.0.1:9", "clientId": "o", "loginClientId": "l", "cutover": "2027-03-01T00:00:00Z", "allowPlainHTTP": true}"#
        )
        #expect(loopback.legacyJanrain?.base == "http://127.0.0.1:9")
    }

    @Test func theSecretComesFromAFileOrTheEnvironmentAndIsNeverInTheError() throws {
        var legacy = try #require(try Self.load(Self.minimal).legacyJanrain)
        #expect(try LegacyJanrainSecret.read(legacy, environment: ["CAPTURE_LEGACY_JANRAIN_SECRET": "s3cr3t"]) == "s3cr3t")
        let missing = #expect(throws: SettingsError.self) { try LegacyJanrainSecret.read(legacy, environment: [:]) }
        #expect(missing?.problem.contains("CAPTURE_LEGACY_JANRAIN_SECRET") == true)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("legacy-secret-\(UUID().uuidString)")
        try Data("from-a-file\n".utf8).write(to: file)
        legacy.clientSecretFile = file.path
        #expect(try LegacyJanrainSecret.read(legacy, environment: ["CAPTURE_LEGACY_JANRAIN_SECRET": "not used"]) == "from-a-file")
        try Data("\n".utf8).write(to: file)
        let empty = #expect(throws: SettingsError.self) { try LegacyJanrainSecret.read(legacy, environment: [:]) }
        #expect(empty?.problem == "holds no secret")
    }
}
