import CaptureCore
import CaptureStorage
import CaptureTestSupport
import Foundation
import Testing

/// Issue 51: a client's features and whitelist, and Janrain's client settings (defaults and each client's own), on
/// both backends: stored as given, read from another store, counted as changes of the clients, and removed with
/// their client.
extension RepositoryConformanceTests {
    @Test(arguments: TestBackend.allCases)
    func featuresAndWhitelistAreStoredAsGiven(_ backend: TestBackend) async throws {
        let (service, cli) = try await Self.twoStores(backend)
        var client = Client(clientID: "backend", name: "Backend", secretHash: "h", createdAt: Self.now)
        #expect(client.features == [.loginClient])
        try await cli.repositories.clients.insert(client)
        #expect(try await service.repositories.clients.find(id: "backend")?.features == [.loginClient])
        client.features = [.owner, .directAccess]
        client.whitelist = ["192.0.2.0/24", "2001:db8::1"]
        try await cli.repositories.clients.upsert(client)
        #expect(try await service.repositories.clients.find(id: "backend") == client)
        client.features = []
        client.whitelist = []
        try await cli.repositories.clients.upsert(client)
        #expect(try await service.repositories.clients.list() == [client])
    }

    @Test(arguments: TestBackend.allCases)
    func settingsAreKeptPerClientOverDefaultsAndGoWithTheirClient(_ backend: TestBackend) async throws {
        let (service, cli) = try await Self.twoStores(backend)
        let settings = cli.repositories.clientSettings
        try await cli.repositories.clients.insert(Client(clientID: "web", name: "Web", createdAt: Self.now))
        let v0 = try await service.repositories.clients.version()
        #expect(try await settings.change(.defaults, set: ["site_name": "App", "level": "1"], removing: []).isEmpty)
        let v1 = try await service.repositories.clients.version()
        #expect(v1 != v0, "a default's change is a change of the clients")
        let existed = try await settings.change(.client("web"), set: ["site_name": "Web", "owner": "Jay"], removing: [])
        #expect(existed.isEmpty)
        #expect(try await service.repositories.clients.version() != v1)
        #expect(try await service.repositories.clientSettings.values(of: .defaults) == ["site_name": "App", "level": "1"])
        #expect(try await service.repositories.clientSettings.values(of: .client("web")) == ["site_name": "Web", "owner": "Jay"])
        #expect(
            try await settings.change(.client("web"), set: ["owner": "Kim"], removing: ["site_name", "none"]) == [
                "owner", "site_name",
            ])
        #expect(try await service.repositories.clientSettings.allClientValues() == ["web": ["owner": "Kim"]])
        await #expect(throws: CaptureError.recordNotFound("client 'nobody'")) {
            try await settings.change(.client("nobody"), set: ["a": "b"], removing: [])
        }
        #expect(try await cli.repositories.clients.delete(id: "web"))
        #expect(try await service.repositories.clientSettings.values(of: .client("web")).isEmpty)
        #expect(try await service.repositories.clientSettings.allClientValues().isEmpty)
        #expect(try await settings.change(.defaults, set: [:], removing: ["level"]) == ["level"])
        #expect(try await service.repositories.clientSettings.values(of: .defaults) == ["site_name": "App"])
    }
}
