import CaptureCore
import Foundation
import Testing

@Suite struct ConnectionSettingsTests {
    func load(_ serviceJSON: String) throws -> ServiceSettings {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("service-\(UUID().uuidString).json")
        try Data(serviceJSON.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        return try ServiceSettings.load(file: file)
    }

    @Test func connectionLimitsDefaultToTenThirtySixtySecondsAnd1024Connections() throws {
        let settings = try load("{}")
        #expect(settings.requestHeaderTimeoutSeconds == 10)
        #expect(settings.requestBodyTimeoutSeconds == 30)
        #expect(settings.idleTimeoutSeconds == 60)
        #expect(settings.maxConnections == 1024)
        let custom = try load(#"{"requestHeaderTimeoutSeconds": 2.5, "maxConnections": 8}"#)
        #expect(custom.requestHeaderTimeoutSeconds == 2.5)
        #expect(custom.maxConnections == 8)
    }

    @Test(arguments: [
        (#"{"requestHeaderTimeoutSeconds": 0}"#, "requestHeaderTimeoutSeconds"),
        (#"{"requestBodyTimeoutSeconds": -1}"#, "requestBodyTimeoutSeconds"),
        (#"{"idleTimeoutSeconds": 86400}"#, "idleTimeoutSeconds"),
        (#"{"maxConnections": 0}"#, "maxConnections"),
    ])
    func connectionLimitsOutsideTheirRangesAreRefusedByName(json: String, key: String) throws {
        let error = #expect(throws: SettingsError.self) { try load(json) }
        #expect(error?.key == key)
    }
}
