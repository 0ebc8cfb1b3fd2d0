import CaptureCore
import CaptureTestSupport
import Foundation
import Testing

@Suite struct SettingsTests {
    func temporarySettings(serviceJSON: String, formsJSON: String? = nil) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("settings-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: TestWorld.settingsDirectory.appendingPathComponent("flows"), to: directory.appendingPathComponent("flows"))
        try Data(serviceJSON.utf8).write(to: directory.appendingPathComponent("service.json"))
        let forms =
            try formsJSON.map { Data($0.utf8) }
            ?? Data(contentsOf: TestWorld.settingsDirectory.appendingPathComponent("forms.json"))
        try forms.write(to: directory.appendingPathComponent("forms.json"))
        try FileManager.default.copyItem(
            at: TestWorld.settingsDirectory.appendingPathComponent("schema.json"),
            to: directory.appendingPathComponent("schema.json"))
        return directory
    }

    @Test func theShippedSettingsLoad() throws {
        let settings = try ServiceSettings.load(file: TestWorld.settingsDirectory.appendingPathComponent("service.json"))
        #expect(settings.clients.map(\.clientId).contains("demo-mobile-app"))
        #expect(settings.bcryptCost >= 10)
        let catalog = try FlowCatalog.load(directory: TestWorld.settingsDirectory)
        #expect(Set(catalog.flows.keys).isSuperset(of: ["webViewSignIn", "webViewProfile", "webViewDemo"]))
        #expect(catalog.forms["signInForm"] == ["signInEmailAddress", "currentPassword"])
    }

    @Test func aWrongTypeNamesFileAndKey() throws {
        let directory = try temporarySettings(serviceJSON: #"{"port": "eighty"}"#)
        let error = #expect(throws: SettingsError.self) {
            try ServiceSettings.load(file: directory.appendingPathComponent("service.json"))
        }
        #expect(error?.key == "port")
        #expect(error?.file.hasSuffix("service.json") == true)
    }

    @Test func malformedJSONIsReportedForTheFile() throws {
        let directory = try temporarySettings(serviceJSON: "{ not json")
        let error = #expect(throws: SettingsError.self) {
            try ServiceSettings.load(file: directory.appendingPathComponent("service.json"))
        }
        #expect(error?.problem == "is not valid JSON")
    }

    @Test func outOfRangeValuesAreRefused() throws {
        let directory = try temporarySettings(serviceJSON: #"{"bcryptCost": 4}"#)
        let error = #expect(throws: SettingsError.self) {
            try ServiceSettings.load(file: directory.appendingPathComponent("service.json"))
        }
        #expect(error?.key == "bcryptCost")
        let clients = try temporarySettings(serviceJSON: #"{"clients": [{"clientId": "ok-id", "redirectUris": ["//evil"]}]}"#)
        let clientError = #expect(throws: SettingsError.self) {
            try ServiceSettings.load(file: clients.appendingPathComponent("service.json"))
        }
        #expect(clientError?.key == "clients[0].redirectUris")
        let port = try temporarySettings(serviceJSON: #"{"port": 65536}"#)
        #expect(throws: SettingsError.self) { try ServiceSettings.load(file: port.appendingPathComponent("service.json")) }
        // 0 asks the system for any free port (the server logs the one it got).
        let anyPort = try temporarySettings(serviceJSON: #"{"port": 0}"#)
        #expect(try ServiceSettings.load(file: anyPort.appendingPathComponent("service.json")).port == 0)
    }

    @Test func aFormNamingAnUndefinedFieldIsRefused() throws {
        let directory = try temporarySettings(
            serviceJSON: "{}", formsJSON: #"{"fields": {}, "forms": {"signInForm": ["ghost"]}}"#)
        let error = #expect(throws: SettingsError.self) { try FlowCatalog.load(directory: directory) }
        #expect(error?.key == "forms.signInForm")
    }

    @Test func aFlowAnswersToItsAliasesAndTwoFlowsCannotClaimOneName() throws {
        let shipped = try FlowCatalog.load(directory: TestWorld.settingsDirectory)
        #expect(shipped.flow(named: "standard")?.name == "webViewDemo")
        #expect(shipped.flow(named: "webViewFlow")?.name == "webViewDemo")
        #expect(shipped.flow(named: "plugins") == nil)
        for claimed in ["standard", "webViewSignIn"] {
            let directory = try temporarySettings(serviceJSON: "{}")
            let file = directory.appendingPathComponent("flows/webViewProfile.json")
            var flow = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
            flow["aliases"] = [claimed]
            try JSONSerialization.data(withJSONObject: flow).write(to: file)
            let error = #expect(throws: SettingsError.self) { try FlowCatalog.load(directory: directory) }
            #expect(error?.key == "aliases" && error?.problem.contains("'\(claimed)'") == true, "\(claimed)")
        }
    }

    @Test func aFlowsResponseTypeIsOneOfThree() throws {
        let directory = try temporarySettings(serviceJSON: "{}")
        let file = directory.appendingPathComponent("flows/webViewProfile.json")
        var flow = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        flow["responseType"] = "id_token"
        try JSONSerialization.data(withJSONObject: flow).write(to: file)
        let error = #expect(throws: SettingsError.self) { try FlowCatalog.load(directory: directory) }
        #expect(error?.key == "responseType" && error?.problem == "must be token, code or code_and_token")
        let shipped = try FlowCatalog.load(directory: TestWorld.settingsDirectory)
        #expect(shipped.flow(named: "webViewSignIn")?.responseType == .token)
    }

    @Test func oneFlowAtMostServesJanrainPagesWhoseFlowIsNotHere() throws {
        #expect(try FlowCatalog.load(directory: TestWorld.settingsDirectory).janrainFallback?.name == "webViewDemo")
        let directory = try temporarySettings(serviceJSON: "{}")
        let file = directory.appendingPathComponent("flows/webViewProfile.json")
        var flow = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        flow["janrainFallback"] = true
        try JSONSerialization.data(withJSONObject: flow).write(to: file)
        let error = #expect(throws: SettingsError.self) { try FlowCatalog.load(directory: directory) }
        #expect(error?.key == "janrainFallback" && error?.problem.contains("webViewDemo") == true)
    }

    @Test func flagsBeatEnvironmentWhichBeatsTheFile() throws {
        let directory = try temporarySettings(serviceJSON: #"{"port": 7000, "host": "127.0.0.2", "database": "file.sqlite"}"#)
        let fileOnly = try ServiceSettings.resolve(directory: directory, flags: SettingsOverrides(), environment: [:])
        #expect(fileOnly.port == 7000)
        let environment = ["CAPTURE_PORT": "7001", "CAPTURE_DB": "env.sqlite"]
        let withEnvironment = try ServiceSettings.resolve(
            directory: directory, flags: SettingsOverrides(), environment: environment)
        #expect(withEnvironment.port == 7001)
        #expect(withEnvironment.database == "env.sqlite")
        #expect(withEnvironment.host == "127.0.0.2")
        let withFlags = try ServiceSettings.resolve(
            directory: directory, flags: SettingsOverrides(port: 7002), environment: environment)
        #expect(withFlags.port == 7002)
        #expect(withFlags.database == "env.sqlite")
        let defaults = try ServiceSettings.resolve(
            directory: try temporarySettings(serviceJSON: "{}"), flags: SettingsOverrides(), environment: [:])
        #expect(defaults.port == 8080)
        #expect(throws: SettingsError.self) {
            try ServiceSettings.resolve(directory: directory, flags: SettingsOverrides(), environment: ["CAPTURE_PORT": "x"])
        }
    }
}
