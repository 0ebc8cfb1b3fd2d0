import CaptureCore
import CaptureTestSupport
import Foundation
import Testing

/// Issue 51: service.json's clients may name Janrain's features, whitelist and settings; they seed the stored ones
/// and win for what they name at every start, while what they leave out stays as stored.
@Suite struct ClientSettingsSeedTests {
    func load(client clientJSON: String) throws -> ServiceSettings {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("seed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let json = #"""
            {"clients": [{"clientId": "site-app", "allowedOrigins": ["https://www.example.com"], \#(clientJSON)}]}
            """#
        try Data(json.utf8).write(to: directory.appendingPathComponent("service.json"))
        return try ServiceSettings.load(file: directory.appendingPathComponent("service.json"))
    }

    @Test func badFeaturesWhitelistsAndSettingsStopTheStartNamingTheKey() {
        for (json, key) in [
            (#""features": ["root"]"#, "clients[0].features"), (#""whitelist": ["example.com"]"#, "clients[0].whitelist"),
            (#""settings": {"bad key": "x"}"#, "clients[0].settings.bad key"),
            (#""settings": {"password_recover_url": "https://elsewhere.example/r"}"#, "clients[0].settings.password_recover_url"),
        ] {
            let error = #expect(throws: SettingsError.self) { try load(client: json) }
            #expect(error?.key == key, "\(json)")
        }
    }

    @Test func serviceJSONWinsForWhatItNamesAndLeavesTheRest() async throws {
        let world = try await TestWorld.make { settings in
            var pinned = ClientSettings(clientId: "pinned-backend")
            pinned.allowedOrigins = ["https://pinned.example"]
            pinned.siteName = "Pinned"
            pinned.settings = ["default_flow_name": "standard", "site_name": "overridden by siteName"]
            pinned.features = ["direct_access"]
            pinned.whitelist = [" 192.0.2.0/24 "]
            settings.clients.append(pinned)
        }
        let stored = try #require(try await world.service.store.clients.find(id: "pinned-backend"))
        #expect(stored.features == [.directAccess] && stored.whitelist == ["192.0.2.0/24"])
        let demo = try #require(try await world.service.store.clients.find(id: "demo-mobile-app"))
        #expect(demo.features == [.loginClient], "a client whose entry names no features is a login client")
        let items = try await world.service.clientSettingsAccess.items(for: "pinned-backend")
        #expect(items == ["site_name": "Pinned", "default_flow_name": "standard"])

        // Changed at run time: the keys service.json names come back at the next start; the others stay.
        try await world.service.store.clientSettings.change(
            .client("pinned-backend"), set: ["site_name": "Renamed", "owner": "Jay"], removing: [])
        var changed = stored
        changed.whitelist = []
        try await world.service.store.clients.upsert(changed)
        try await world.service.clientAdmin.syncSettingsClients()
        #expect(
            try await world.service.clientSettingsAccess.items(for: "pinned-backend")
                == ["site_name": "Pinned", "default_flow_name": "standard", "owner": "Jay"])
        #expect(try await world.service.store.clients.find(id: "pinned-backend")?.whitelist == ["192.0.2.0/24"])
    }
}
