import Foundation

/// Operators' verbs on clients: add, update, rotate, remove, and the settings' clients kept in the store.
public struct ClientAdministration: Sendable {
    let clients: any ClientRepository
    let clientSettings: any ClientSettingsRepository
    let tokens: any TokenRepository
    let catalog: FlowCatalog
    let settings: ServiceSettings
    let time: any TimeSource
    let minter: TokenMinter
    let metrics: CaptureMetrics
    let clientAccess: ClientAccess
    let secrets: ClientSecrets
}

extension ClientAdministration {
    /// Writes the clients pinned in Settings into storage (secrets as hashes), so both the service and capturectl see
    /// them. service.json wins for what it names: its features, whitelist and settings (`siteName`, `verifyEmailUrl`,
    /// `passwordRecoverUrl`, `settings`) replace the stored ones at every start; what it leaves out (a setting made
    /// with `settings/set`, features given with `clients/set_features`) stays as stored (docs/adr/0063).
    public func syncSettingsClients() async throws {
        for entry in settings.clients {
            let existing = try await clients.find(id: entry.clientId)
            var client = Client(
                clientID: entry.clientId, name: entry.name ?? entry.clientId,
                redirectURIs: entry.redirectUris ?? [],
                allowedOrigins: entry.allowedOrigins ?? [], responseTypes: ResponseType.list(entry.responseTypes ?? ["token"]),
                legacyTokenURL: entry.legacyTokenUrl ?? false, accessTokenLifeHours: entry.accessTokenLifeHours,
                createdAt: existing?.createdAt ?? time.now())
            if let secret = entry.secret { client = secrets.giving(secret, to: client) }
            client.keepSessionsOnPasswordChange = entry.keepSessionsOnPasswordChange ?? false
            client.requireVerifiedEmail = entry.requireVerifiedEmail ?? false
            client.allowUnverifiedEmail = entry.allowUnverifiedEmail ?? false
            client.features =
                entry.features.flatMap(ClientFeature.parse) ?? existing?.features ?? [.loginClient]
            client.whitelist = entry.whitelist.map(ClientWhitelist.normalized) ?? existing?.whitelist ?? []
            try await clients.upsert(client)
            let seed = entry.seedSettings
            if !seed.isEmpty { try await clientSettings.change(.client(client.clientID), set: seed, removing: []) }
        }
    }

    /// Registers a client; returns the secret once (only its hash is stored) for a confidential client.
    public func addClient(_ draft: ClientDraft) async throws -> (Client, secret: String?) {
        try Self.checkWhitelist(draft.whitelist)
        guard ClientRules.isValidClientID(draft.id) else {
            throw CaptureError.invalidArgument("client_id", "must be 3-64 letters, digits, '-', '_' or '.'")
        }
        try Self.checkClientValues(
            redirectURIs: draft.redirectURIs, allowedOrigins: draft.allowedOrigins, responseTypes: draft.responseTypes)
        let secret = draft.confidential ? minter.mint() : nil
        var client = Client(
            clientID: draft.id, name: draft.name ?? draft.id,
            redirectURIs: draft.redirectURIs, allowedOrigins: draft.allowedOrigins,
            responseTypes: draft.responseTypes.isEmpty ? [.token] : ResponseType.list(draft.responseTypes),
            legacyTokenURL: draft.legacyTokenURL,
            createdAt: time.now())
        if let secret { client = secrets.giving(secret, to: client) }
        client.features = draft.features ?? [.loginClient]
        client.whitelist = ClientWhitelist.normalized(draft.whitelist)
        let pages = draft.pages.janrainClientSettings
        try Self.checkSettings(pages, of: client)
        try await clients.insert(client)
        if !pages.isEmpty { try await clientSettings.change(.client(client.clientID), set: pages, removing: []) }
        return (client, secret)
    }

    /// Changes a client registered at run time (those in Settings are edited there); returns it as stored.
    public func updateClient(_ id: String, _ change: ClientChange) async throws -> Client {
        var client = try await findClient(id)
        try refuseSettingsClient(id, to: "update")
        guard !change.isEmpty else { throw CaptureError.missingArgument("a field to change") }
        try Self.checkClientValues(
            redirectURIs: change.redirectURIs ?? [], allowedOrigins: change.allowedOrigins ?? [],
            responseTypes: change.responseTypes ?? [])
        if let name = change.name {
            guard !name.isEmpty, name.count <= 200 else {
                throw CaptureError.invalidArgument("name", "must be 1 to 200 characters")
            }
            client.name = name
        }
        if let uris = change.redirectURIs { client.redirectURIs = uris }
        if let origins = change.allowedOrigins { client.allowedOrigins = origins }
        if let types = change.responseTypes { client.responseTypes = types.isEmpty ? [.token] : ResponseType.list(types) }
        if let legacy = change.legacyTokenURL { client.legacyTokenURL = legacy }
        if let features = change.features { client.features = features }
        if let whitelist = change.whitelist {
            try Self.checkWhitelist(whitelist)
            client.whitelist = ClientWhitelist.normalized(whitelist)
        }
        let pages = [
            (ClientSettingKey.siteName, change.siteName), (ClientSettingKey.verifyEmailURL, change.verifyEmailURL),
            (ClientSettingKey.passwordRecoverURL, change.passwordRecoverURL),
        ]
        let given = pages.reduce(into: [String: String]()) { given, pair in if let value = pair.1 { given[pair.0] = value } }
        let set = given.filter { !$0.value.isEmpty }
        try Self.checkSettings(set, of: client)
        try await clients.upsert(client)
        if !given.isEmpty {
            try await clientSettings.change(
                .client(id), set: set, removing: Set(given.filter { $0.value.isEmpty }.keys))
        }
        return client
    }

    /// Settings as every path checks them (`ClientSettingRules`): for a client's pages a name people can read, and
    /// links only to an origin the client names, so a mailed code never leads anywhere its registration does not.
    static func checkSettings(_ items: [String: String], of client: Client?) throws {
        for (key, value) in items.sorted(by: { $0.key < $1.key }) {
            if let problem = ClientSettingRules.problem(key: key, value: value, for: client) {
                throw CaptureError.invalidArgument(key, problem)
            }
        }
    }

    static func checkWhitelist(_ entries: [String]) throws {
        if let problem = ClientWhitelist.problem(with: entries) { throw CaptureError.invalidArgument("whitelist", problem) }
    }

    private static func checkClientValues(redirectURIs: [String], allowedOrigins: [String], responseTypes: [String]) throws {
        for uri in redirectURIs where !ClientRules.isValidRedirectPattern(uri) {
            throw CaptureError.invalidArgument("redirect_uri", "'\(uri)' must be an absolute http(s) URL or a path")
        }
        for origin in allowedOrigins where URLOrigin(origin) == nil {
            throw CaptureError.invalidArgument("origin", "'\(origin)' is not an http(s) origin")
        }
        for type in responseTypes {
            if let problem = ClientRules.problem(withResponseType: type) {
                throw CaptureError.invalidArgument("response_type", problem)
            }
        }
    }
}

extension ClientAdministration {
    public func findClient(_ id: String) async throws -> Client {
        guard let client = try await clients.find(id: id) else { throw CaptureError.recordNotFound("client '\(id)'") }
        return client
    }

    public func listClients() async throws -> [Client] {
        try await clients.list()
    }

    /// The client's own settings (without the app's defaults) as its pages: what `client add/update` set.
    public func ownPages(of id: String) async throws -> ClientPages {
        let own = try await clientSettings.values(of: .client(id))
        return ClientPages(
            siteName: own[ClientSettingKey.siteName], verifyEmailURL: own[ClientSettingKey.verifyEmailURL],
            passwordRecoverURL: own[ClientSettingKey.passwordRecoverURL])
    }

    /// Removes a client registered at run time and revokes its tokens; clients pinned in Settings are refused
    /// (start-up would bring them back).
    public func removeClient(_ id: String) async throws -> (client: Client, revoked: Int) {
        let client = try await findClient(id)
        try refuseSettingsClient(id, to: "remove")
        let revoked = try await tokens.revokeAll(clientID: id, at: time.now())
        metrics.revoked(revoked, .operatorAction)
        try await clients.delete(id: id)
        return (client, revoked.count)
    }

    /// A new secret for a confidential client, returned once; the old one stops working at once, or after
    /// `keepingOldHours` (`RetiringSecret`).
    public func rotateClientSecret(
        _ id: String, keepingOldHours: Int = 0
    ) async throws -> (client: Client, secret: String) {
        var client = try await findClient(id)
        try refuseSettingsClient(id, to: "rotate the secret of")
        guard client.isConfidential else {
            throw CaptureError.notPermitted("client '\(id)' is public (a native app): it has no secret to rotate")
        }
        let secret = minter.mint()
        let keepingOld = keepingOldHours > 0 ? time.now().addingTimeInterval(Double(keepingOldHours) * 3600) : nil
        client = secrets.giving(secret, to: client, keepingOldUntil: keepingOld)
        try await clients.upsert(client)
        return (client, secret)
    }

    func refuseSettingsClient(_ id: String, to verb: String) throws {
        if settings.clients.contains(where: { $0.clientId == id }) {
            throw CaptureError.notPermitted("client '\(id)' is defined in the settings (service.json); \(verb) it there")
        }
    }

}
