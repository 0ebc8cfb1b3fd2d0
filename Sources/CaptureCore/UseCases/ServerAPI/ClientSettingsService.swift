import CaptureJSON
import Foundation

/// Janrain's `clients/*` and `settings/*` on the server API (JANRAIN-API.md §4). Each call takes the calling client,
/// authenticated, with its features (`ServerCallKind.administerClients`) and whitelist checked where every server
/// API call is checked, and answers the reply's members without `stat` (the route adds it). Every change writes an
/// audit row naming the caller (`AuditActor.client`). A client id that names no client is Janrain's 200
/// `invalid_argument` naming the argument (docs/adr/0063-client-settings-in-the-database.md).
public struct ClientSettingsService: Sendable {
    let clients: any ClientRepository
    let clientSettings: any ClientSettingsRepository
    let time: any TimeSource
    let minter: TokenMinter
    let secrets: ClientSecrets
    let settingsAccess: ClientSettingsAccess
    let clientAdmin: ClientAdministration
    let audit: AuditTrail
}

extension ClientSettingsService {
    /// `clients/list`: every client, or those with at least one of `has_features` (a JSON list). A client's secret is
    /// not shown: only its hash is stored; it is shown once, by `clients/add` and `clients/reset_secret`.
    public func listClients(by caller: Client, hasFeatures: String?) async throws -> JSONValue {
        let wanted = try hasFeatures.map { try ServerArguments.features($0, "has_features") }
        let listed = try await clients.list().filter { client in wanted.map { !client.features.isDisjoint(with: $0) } ?? true }
        return ["results": .array(listed.map(Self.entry))]
    }

    /// `clients/add`: a confidential client with `description` and `features` (a JSON list; none given: none, as
    /// Janrain's). Answers the new `client_id` and `client_secret`, the secret this once.
    public func addClient(by caller: Client, description: String?, features: String?) async throws -> JSONValue {
        let name = try Self.description(description)
        let granted = try features.map { try ServerArguments.features($0, "features") } ?? []
        let id = Self.clientID(minter.random)
        let secret = minter.mint()
        try await audit.audited("client.add", target: id, by: .client(caller.clientID)) {
            var client = secrets.giving(secret, to: Client(clientID: id, name: name, createdAt: time.now()))
            client.features = granted
            client.whitelist = []
            try await clients.insert(client)
        }
        return ["client_id": .string(id), "client_secret": .string(secret)]
    }

    /// `clients/delete`: removes the client, its settings and its tokens. A client cannot remove itself, and one
    /// pinned in service.json is removed there.
    public func deleteClient(by caller: Client, clientIDForDeletion: String?) async throws -> JSONValue {
        let id = try ServerArguments.required(clientIDForDeletion, "client_id_for_deletion")
        guard id != caller.clientID else {
            throw CaptureError.invalidArgument("client_id_for_deletion", "a client cannot delete itself")
        }
        _ = try await client(id, argument: "client_id_for_deletion")
        try await audit.audited("client.remove", target: id, by: .client(caller.clientID)) {
            _ = try await clientAdmin.removeClient(id)
        }
        return [:]
    }

    /// `clients/set_features`: replaces the client's features (a JSON list). The caller cannot take `owner` from
    /// itself, which would leave the app without a client that can give it back.
    public func setFeatures(by caller: Client, forClientID: String?, features: String?) async throws -> JSONValue {
        var client = try await client(try ServerArguments.required(forClientID, "for_client_id"))
        let granted = try ServerArguments.features(try ServerArguments.required(features, "features"), "features")
        if client.clientID == caller.clientID, caller.features.contains(.owner), !granted.contains(.owner) {
            throw CaptureError.invalidArgument("features", "a client cannot take owner from itself")
        }
        client.features = granted
        try await change(client, by: caller, detail: "features")
        return [:]
    }

    /// `clients/set_description`: the client's name. One pinned in service.json is renamed there.
    public func setDescription(by caller: Client, forClientID: String?, description: String?) async throws -> JSONValue {
        var client = try await client(try ServerArguments.required(forClientID, "for_client_id"))
        client.name = try Self.description(description)
        try clientAdmin.refuseSettingsClient(client.clientID, to: "rename")
        try await change(client, by: caller, detail: "description")
        return [:]
    }

    /// `clients/set_whitelist`: the addresses or CIDR ranges (a JSON list) the client's server API calls may come
    /// from (`ClientWhitelist`); an empty list, or `0.0.0.0/0`, allows any.
    public func setWhitelist(by caller: Client, forClientID: String?, whitelist: String?) async throws -> JSONValue {
        var client = try await client(try ServerArguments.required(forClientID, "for_client_id"))
        let entries = try ServerArguments.strings(try ServerArguments.required(whitelist, "whitelist"), "whitelist")
        try ClientAdministration.checkWhitelist(entries)
        client.whitelist = ClientWhitelist.normalized(entries)
        try await change(client, by: caller, detail: "whitelist")
        return [:]
    }

    /// `clients/reset_secret`: a new secret, answered this once as `new_secret`; the old one keeps working for
    /// `hours_to_live` hours (0, the default, to 168), then stops (`RetiringSecret`).
    public func resetSecret(by caller: Client, forClientID: String?, hoursToLive: String?) async throws -> JSONValue {
        let id = try ServerArguments.required(forClientID, "for_client_id")
        var hours = 0
        if let hoursToLive, !hoursToLive.isEmpty {
            guard let given = Int(hoursToLive), (0...RetiringSecret.maxHours).contains(given) else {
                throw CaptureError.invalidArgument(
                    "hours_to_live", "must be a whole number of hours from 0 to \(RetiringSecret.maxHours)")
            }
            hours = given
        }
        _ = try await client(id)
        let secret = try await audit.audited(
            "client.rotate_secret", target: id, by: .client(caller.clientID), detail: { _ in "old secret kept \(hours) h" }
        ) {
            try await clientAdmin.rotateClientSecret(id, keepingOldHours: hours).secret
        }
        return ["new_secret": .string(secret)]
    }
}

extension ClientSettingsService {
    /// A client as `clients/list` shows it.
    static func entry(_ client: Client) -> JSONValue {
        [
            "client_id": .string(client.clientID), "description": .string(client.name),
            "features": .array(client.features.sorted().map { .string($0.rawValue) }),
            "whitelist": .array(client.whitelist.map(JSONValue.string)),
        ]
    }

    /// The client `id` names; none is Janrain's 200 `invalid_argument` naming `argument`.
    func client(_ id: String, argument: String = "for_client_id") async throws -> Client {
        guard let client = try await clients.find(id: id) else {
            throw CaptureError.invalidArgument(argument, "no client has the id '\(id)'")
        }
        return client
    }

    func change(_ client: Client, by caller: Client, detail: String) async throws {
        try await audit.audited("client.update", target: client.clientID, by: .client(caller.clientID), detail: { _ in detail }) {
            try await clients.upsert(client)
        }
    }

    static func description(_ text: String?) throws -> String {
        let name = try ServerArguments.required(text, "description")
        guard name.count <= 200, ClientPages.isDisplayName(name) else {
            throw CaptureError.invalidArgument("description", "must be 1 to 200 characters, none of them control characters")
        }
        return name
    }

    /// A new client id as Janrain's look: 32 lower-case letters and digits. An id is a name, not a secret (the
    /// secret is `TokenMinter.mint`), so the slight lean of `% 36` towards the first four characters does no harm.
    static func clientID(_ random: any RandomSource) -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        return String(random.bytes(32).map { alphabet[Int($0) % alphabet.count] })
    }
}
