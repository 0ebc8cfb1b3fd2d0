import Foundation

extension CaptureService {
    /// The registered client with this id, through `clientDirectory`; `version` is the store's clients version when
    /// the caller read it already (with a token), else it is read here.
    public func registeredClient(_ id: String, version: Int64? = nil) async throws -> Client? {
        let current: Int64
        if let version { current = version } else { current = try await store.clients.version() }
        return try await clientDirectory.client(id, version: current) { try await store.clients.find(id: id) }
    }

    /// Finds the client a request names; unknown → 402.
    public func client(id: String?, version: Int64? = nil) async throws -> Client {
        guard let id, !id.isEmpty else { throw CaptureError.missingArgument("client_id") }
        guard let client = try await registeredClient(id, version: version) else { throw CaptureError.invalidClient }
        return client
    }

    /// Public clients present their id; confidential ones must also present the right secret.
    public func authenticateClient(id: String?, secret: String?, version: Int64? = nil) async throws -> Client {
        let client = try await client(id: id, version: version)
        try Self.checkSecret(secret, of: client)
        return client
    }

    /// A confidential client's secret must be the right one; a public client has none to present.
    static func checkSecret(_ secret: String?, of client: Client) throws {
        if let expected = client.secretHash {
            guard let secret, ConstantTime.equals(TokenMinter.hash(secret), expected) else {
                throw CaptureError.invalidClient
            }
        } else if secret != nil {
            throw CaptureError.invalidClient
        }
    }

    /// The redirect URI, if given, must be on the client's allow-list by exact origin and path.
    func checkRedirect(_ supplied: String?, for client: Client) throws {
        guard let supplied, !supplied.isEmpty else { return }
        guard
            ClientRules.matchRedirect(supplied, allowed: client.redirectURIs, publicOrigin: settings.resolvedPublicOrigin) != nil
        else {
            let expected = client.redirectURIs.first.map { $0.hasPrefix("/") ? settings.resolvedPublicOrigin + $0 : $0 } ?? ""
            throw CaptureError.redirectURIMismatch(expected: expected, supplied: supplied)
        }
    }

    /// The registered address of this service's flow page that `uri` is with the page's own query (what the page
    /// sends as its `redirect_uri`), or nil for any other URI. A code issued to a page may be redeemed with either
    /// exact form: the page's query holds the parameters it was opened with, not a redirect target (the code reaches
    /// the host over the bridge), and OAuth libraries send the page's registered address.
    func ownPageAddress(of uri: String, client: Client) -> String? {
        guard let query = uri.firstIndex(of: "?") else { return nil }
        let address = String(uri[..<query])
        let pages = client.redirectURIs.filter { $0.hasPrefix("/") }
        return ClientRules.matchRedirect(address, allowed: pages, publicOrigin: settings.resolvedPublicOrigin) != nil
            ? address : nil
    }

    /// Writes the clients pinned in Settings into storage (secrets as hashes), so both the service and capturectl see them.
    public func syncSettingsClients() async throws {
        for entry in settings.clients {
            let existing = try await store.clients.find(id: entry.clientId)
            var client = Client(
                clientID: entry.clientId, name: entry.name ?? entry.clientId,
                secretHash: entry.secret.map(TokenMinter.hash), redirectURIs: entry.redirectUris ?? [],
                allowedOrigins: entry.allowedOrigins ?? [], responseTypes: ResponseType.list(entry.responseTypes ?? ["token"]),
                legacyTokenURL: entry.legacyTokenUrl ?? false, accessTokenLifeHours: entry.accessTokenLifeHours,
                createdAt: existing?.createdAt ?? time.now())
            client.keepSessionsOnPasswordChange = entry.keepSessionsOnPasswordChange ?? false
            client.requireVerifiedEmail = entry.requireVerifiedEmail ?? false
            client.allowUnverifiedEmail = entry.allowUnverifiedEmail ?? false
            client.pages = ClientPages(entry)
            try await store.clients.upsert(client)
        }
    }

    /// Registers a client; returns the secret once (only its hash is stored) for a confidential client.
    public func addClient(_ draft: ClientDraft) async throws -> (Client, secret: String?) {
        guard ClientRules.isValidClientID(draft.id) else {
            throw CaptureError.invalidArgument("client_id", "must be 3-64 letters, digits, '-', '_' or '.'")
        }
        try Self.checkClientValues(
            redirectURIs: draft.redirectURIs, allowedOrigins: draft.allowedOrigins, responseTypes: draft.responseTypes)
        let secret = draft.confidential ? minter.mint() : nil
        var client = Client(
            clientID: draft.id, name: draft.name ?? draft.id, secretHash: secret.map(TokenMinter.hash),
            redirectURIs: draft.redirectURIs, allowedOrigins: draft.allowedOrigins,
            responseTypes: draft.responseTypes.isEmpty ? [.token] : ResponseType.list(draft.responseTypes), legacyTokenURL: draft.legacyTokenURL,
            createdAt: time.now())
        client.pages = draft.pages
        try Self.checkPages(of: client)
        try await store.clients.insert(client)
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
        for (value, keyPath) in [
            (change.siteName, \Client.siteName), (change.verifyEmailURL, \Client.verifyEmailURL),
            (change.passwordRecoverURL, \Client.passwordRecoverURL),
        ] {
            if let value { client[keyPath: keyPath] = value.isEmpty ? nil : value }
        }
        try Self.checkPages(of: client)
        try await store.clients.upsert(client)
        return client
    }

    /// A client's pages, as settings check them (`ClientPages`): a name people can read, and links only to an
    /// origin the client names, so a mailed code never leads anywhere its registration does not.
    private static func checkPages(of client: Client) throws {
        if let name = client.siteName, !ClientPages.isDisplayName(name) {
            throw CaptureError.invalidArgument("site_name", "must be 1 to 120 characters, none of them control characters")
        }
        for (argument, url) in [("verify_email_url", client.verifyEmailURL), ("password_recover_url", client.passwordRecoverURL)] {
            if let url, let problem = ClientPages.problem(withPage: url, of: client) {
                throw CaptureError.invalidArgument(argument, problem)
            }
        }
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
