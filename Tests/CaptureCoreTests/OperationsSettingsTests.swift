import CaptureCore
import CaptureTestSupport
import Foundation
import Logging
import Testing

/// `metricsEnabled`, `logFormat`, `logLevel`, `requestLogLevel`, `purgeIntervalMinutes`, `shutdownGraceSeconds` and
/// their environment twins.
@Suite struct OperationsSettingsTests {
    func settings(_ json: String) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ops-settings-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data(json.utf8).write(to: directory.appendingPathComponent("service.json"))
        return directory
    }

    @Test func defaults() throws {
        let defaults = try ServiceSettings.resolve(directory: try settings("{}"), flags: SettingsOverrides(), environment: [:])
        #expect(defaults.metricsEnabled)
        #expect(defaults.logFormat == .text)
        #expect(defaults.logLevel == .info)
        #expect(defaults.requestLogLevel == .debug)
        #expect(defaults.purgeIntervalMinutes == 60)
        #expect(defaults.shutdownGraceSeconds == 10)
    }

    @Test func theFileSetsThemAndTheEnvironmentWins() throws {
        let directory = try settings(
            #"{"metricsEnabled": false, "logFormat": "json", "logLevel": "debug", "requestLogLevel": "trace", "purgeIntervalMinutes": 0, "#
                + #""shutdownGraceSeconds": 2.5}"#
        )
        let file = try ServiceSettings.resolve(directory: directory, flags: SettingsOverrides(), environment: [:])
        #expect(!file.metricsEnabled)
        #expect(file.logFormat == .json)
        #expect(file.logLevel == .debug)
        #expect(file.requestLogLevel == .trace)
        #expect(file.purgeIntervalMinutes == 0)
        #expect(file.shutdownGraceSeconds == 2.5)
        let forwarded = try ServiceSettings.resolve(
            directory: try settings(#"{"proxyHeader": "forwarded", "metricsPublic": true}"#), flags: SettingsOverrides(),
            environment: [:])
        #expect(forwarded.proxyHeader == .forwarded && forwarded.metricsPublic)
        let environment = ["CAPTURE_LOG_FORMAT": "text", "CAPTURE_LOG_LEVEL": "WARNING"]
        let overridden = try ServiceSettings.resolve(directory: directory, flags: SettingsOverrides(), environment: environment)
        #expect(overridden.logFormat == .text)
        #expect(overridden.logLevel == .warning)
    }

    @Test func badValuesNameTheKeyOrTheVariable() throws {
        for (json, key) in [
            (#"{"logFormat": "xml"}"#, "logFormat"), (#"{"logLevel": "loud"}"#, "logLevel"),
            (#"{"requestLogLevel": "chatty"}"#, "requestLogLevel"), (#"{"purgeIntervalMinutes": -1}"#, "purgeIntervalMinutes"),
            (#"{"proxyHeader": "X-Real-IP"}"#, "proxyHeader"), (#"{"shutdownGraceSeconds": -1}"#, "shutdownGraceSeconds"),
            (#"{"shutdownGraceSeconds": 601}"#, "shutdownGraceSeconds"),
        ] {
            let error = #expect(throws: SettingsError.self) {
                try ServiceSettings.resolve(directory: try settings(json), flags: SettingsOverrides(), environment: [:])
            }
            #expect(error?.key == key, "\(json)")
        }
        for variable in ["CAPTURE_LOG_FORMAT", "CAPTURE_LOG_LEVEL"] {
            let error = #expect(throws: SettingsError.self) {
                try ServiceSettings.resolve(
                    directory: try settings("{}"), flags: SettingsOverrides(), environment: [variable: "nope"])
            }
            #expect(error?.key == variable)
            #expect(error?.problem.contains("nope") == true)
        }
    }
}
