import CaptureCore
import CaptureJSON
import CaptureTestSupport
import Foundation
import Testing

/// Issue 51, item 5: Janrain's `clients/*` and `settings/*` at Core level, on the selected backend: Janrain's reply
/// members, its errors, and an audit row naming the calling client for every change.
@Suite struct ClientSettingsServiceTests {
    /// The world and an owner client to call as.
    static func owner() async throws -> (TestWorld, Client) {
        let world = try await TestWorld.make()
        var draft = ClientDraft(id: "app-owner")
        draft.confidential = true
        draft.features = [.owner]
        let (owner, _) = try await world.service.clientAdmin.addClient(draft)
        return (world, owner)
    }

    static func string(_ reply: JSONValue, _ name: String) -> String? {
        if case .object(let members) = reply, case .string(let text)? = members[name] { return text }
        return nil
    }

    static func count(_ reply: JSONValue, _ name: String) -> Int? {
        if case .object(let members) = reply, case .array(let items)? = members[name] { return items.count }
        return nil
    }

    @Test func aClientAddedIsListedWithItsFeaturesAndChangedByEachCall() async throws {
        let (world, owner) = try await Self.owner()
        let service = world.service.clientSettings
        let added = try await service.addClient(
            by: owner, description: "CRM sync", features: #"["direct_access","access_issuer"]"#)
        let id = try #require(Self.string(added, "client_id"))
        let secret = try #require(Self.string(added, "client_secret"))
        #expect(id.count == 32 && id.allSatisfy { $0.isLowercase || $0.isNumber })
        let stored = try #require(try await world.service.store.clients.find(id: id))
        #expect(stored.features == [.directAccess, .accessIssuer] && stored.name == "CRM sync")
        #expect(stored.secretHash == TokenMinter.hash(secret), "only the secret's hash is stored")

        let listed = try await service.listClients(by: owner, hasFeatures: #"["access_issuer"]"#)
        #expect(
            listed == [
                "results": [
                    [
                        "client_id": .string(id), "description": "CRM sync",
                        "features": ["access_issuer", "direct_access"], "whitelist": [],
                    ]
                ]
            ])
        let all = try await service.listClients(by: owner, hasFeatures: nil)
        #expect(Self.count(all, "results") == world.service.settings.clients.count + 2)

        #expect(try await service.setFeatures(by: owner, forClientID: id, features: #"["direct_read_access"]"#) == [:])
        #expect(try await service.setDescription(by: owner, forClientID: id, description: "CRM read") == [:])
        #expect(try await service.setWhitelist(by: owner, forClientID: id, whitelist: #"["192.0.2.0/24"]"#) == [:])
        let changed = try #require(try await world.service.store.clients.find(id: id))
        #expect(changed.features == [.directReadAccess] && changed.name == "CRM read" && changed.whitelist == ["192.0.2.0/24"])
        #expect(changed.allowsCall(from: "192.0.2.7") && !changed.allowsCall(from: "198.51.100.1"))

        let reset = try await service.resetSecret(by: owner, forClientID: id, hoursToLive: "0")
        let newSecret = try #require(Self.string(reset, "new_secret"))
        #expect(try await world.service.store.clients.find(id: id)?.secretHash == TokenMinter.hash(newSecret))

        #expect(try await service.deleteClient(by: owner, clientIDForDeletion: id) == [:])
        #expect(try await world.service.store.clients.find(id: id) == nil)

        let rows = try await world.service.audit.auditLog(AuditFilter(actor: "client:app-owner", page: Page(limit: 20)))
        #expect(
            Set(rows.map(\.action)) == ["client.add", "client.update", "client.rotate_secret", "client.remove"],
            "\(rows.map(\.action))")
        #expect(rows.allSatisfy { $0.target == id && $0.outcome == AuditEntry.success })
    }

    @Test func badArgumentsAreJanrainsErrors() async throws {
        let (world, owner) = try await Self.owner()
        let service = world.service.clientSettings
        await #expect(throws: CaptureError.invalidArgument("has_features", "the JSON is not syntactically valid")) {
            try await service.listClients(by: owner, hasFeatures: "[owner")
        }
        await #expect(throws: CaptureError.self) {
            try await service.addClient(by: owner, description: "x", features: #"["root"]"#)
        }
        await #expect(throws: CaptureError.missingArgument("description")) {
            try await service.addClient(by: owner, description: nil, features: nil)
        }
        await #expect(throws: CaptureError.invalidArgument("for_client_id", "no client has the id 'nobody'")) {
            try await service.setFeatures(by: owner, forClientID: "nobody", features: "[]")
        }
        await #expect(throws: CaptureError.invalidArgument("client_id_for_deletion", "a client cannot delete itself")) {
            try await service.deleteClient(by: owner, clientIDForDeletion: owner.clientID)
        }
        await #expect(throws: CaptureError.invalidArgument("features", "a client cannot take owner from itself")) {
            try await service.setFeatures(by: owner, forClientID: owner.clientID, features: #"["direct_access"]"#)
        }
        await #expect(throws: CaptureError.self) {
            try await service.setWhitelist(by: owner, forClientID: owner.clientID, whitelist: #"["example.com"]"#)
        }
        await #expect(throws: CaptureError.self) {
            try await service.resetSecret(by: owner, forClientID: owner.clientID, hoursToLive: "320")
        }
        await #expect(throws: CaptureError.invalidArgument("keys", "must be a JSON list of strings")) {
            try await service.getMulti(by: owner, keys: #"{"a":1}"#, forClientID: nil)
        }
        await #expect(throws: CaptureError.invalidArgument("items", "the JSON is not syntactically valid")) {
            try await service.setMulti(by: owner, items: "{", forClientID: nil)
        }
        for error in [
            CaptureError.invalidArgument("has_features", "the JSON is not syntactically valid"), .missingArgument("key"),
        ] {
            #expect((200..<300).contains(error.code) || error.code == 100)
        }
        let pinned = try #require(world.service.settings.clients.first?.clientId)
        await #expect(throws: CaptureError.self) { try await service.deleteClient(by: owner, clientIDForDeletion: pinned) }
    }

    @Test func settingsAreTheClientsOwnOverTheDefaults() async throws {
        let (world, owner) = try await Self.owner()
        let service = world.service.clientSettings
        #expect(try await service.setDefault(by: owner, key: "site_name", value: "Orchard") == ["result": false])
        #expect(try await service.setDefault(by: owner, key: "level", value: "1") == ["result": false])
        #expect(try await service.set(by: owner, key: "level", value: "10", forClientID: nil) == ["result": false])
        #expect(
            try await service.setMulti(by: owner, items: #"{"owner":"Jay","level":"11"}"#, forClientID: nil)
                == ["result": ["owner": false, "level": true]])
        #expect(
            try await service.items(by: owner, forClientID: nil)
                == ["result": ["site_name": "Orchard", "level": "11", "owner": "Jay"]])
        #expect(try await service.get(by: owner, key: "site_name", forClientID: owner.clientID) == ["result": "Orchard"])
        #expect(try await service.get(by: owner, key: "none", forClientID: nil) == ["result": .null])
        #expect(
            try await service.getMulti(by: owner, keys: #"["level","none"]"#, forClientID: nil)
                == ["result": ["level": "11", "none": .null]])
        #expect(try await service.delete(by: owner, key: "level", forClientID: nil) == ["result": true])
        #expect(try await service.get(by: owner, key: "level", forClientID: nil) == ["result": "1"])
        #expect(try await service.deleteDefault(by: owner, key: "level") == ["result": true])
        #expect(try await service.deleteDefault(by: owner, key: "level") == ["result": false])
        #expect(
            try await service.getAll(by: owner)
                == ["default_settings": ["site_name": "Orchard"], "client_settings": ["app-owner": ["owner": "Jay"]]])
        // A page address must be on the client's origins; the defaults' must at least be an address.
        await #expect(throws: CaptureError.self) {
            try await service.set(by: owner, key: "password_recover_url", value: "https://elsewhere.example/r", forClientID: nil)
        }
        await #expect(throws: CaptureError.self) {
            try await service.setDefault(by: owner, key: "verify_email_url", value: "javascript:alert(1)")
        }
        let rows = try await world.service.audit.auditLog(AuditFilter(actor: "client:app-owner", page: Page(limit: 20)))
        #expect(
            Set(rows.map(\.action)) == ["settings.set", "settings.delete", "settings.set_default", "settings.delete_default"])
    }
}
