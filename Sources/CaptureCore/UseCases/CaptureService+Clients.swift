import Foundation

extension CaptureService {
    /// Finds the client a request names; unknown → 402.
    public func client(id: String?) async throws -> Client {
        guard let id, !id.isEmpty else { throw CaptureError.missingArgument("client_id") }
        guard let client = try await store.clients.find(id: id) else { throw CaptureError.invalidClient }
        return client
    }

    /// Public clients present their id; confidential ones must also present the right secret.
    public func authenticateClient(id: String?, secret: String?) async throws -> Client {
        let client = try await client(id: id)
        if let expected = client.secretHash {
            guard let secret, ConstantTime.equals(TokenMinter.hash(secret), expected) else {
                throw CaptureError.invalidClient
            }
        } else if secret != nil {
            throw CaptureError.invalidClient
        }
        return client
    }

    /// The redirect URI, if given, must be on the client's allow-list by exact origin and path.
    func checkRedirect(_ supplied: String?, for client: Client) throws {
        guard let supplied, !supplied.isEmpty else { return }
        guard ClientRules.matchRedirect(supplied, allowed: client.redirectURIs, publicOrigin: settings.resolvedPublicOrigin) != nil
        else {
            let expected = client.redirectURIs.first.map { $0.hasPrefix("/") ? settings.resolvedPublicOrigin + $0 : $0 } ?? ""
            throw CaptureError.redirectURIMismatch(expected: expected, supplied: supplied)
        }
    }

    /// Writes the clients pinned in Settings into storage (secrets as hashes), so both the service and capturectl see them.
    public func syncSettingsClients() async throws {
        for entry in settings.clients {
            let existing = try await store.clients.find(id: entry.clientId)
            var client = Client(
                clientID: entry.clientId, name: entry.name ?? entry.clientId,
                secretHash: entry.secret.map(TokenMinter.hash), redirectURIs: entry.redirectUris ?? [],
                allowedOrigins: entry.allowedOrigins ?? [], responseTypes: entry.responseTypes ?? ["token"],
                legacyTokenURL: entry.legacyTokenUrl ?? false, accessTokenLifeHours: entry.accessTokenLifeHours,
                createdAt: existing?.createdAt ?? time.now())
            client.keepSessionsOnPasswordChange = entry.keepSessionsOnPasswordChange ?? false
            client.requireVerifiedEmail = entry.requireVerifiedEmail ?? false
            try await store.clients.upsert(client)
        }
    }

    /// Registers a client; returns the secret once (only its hash is stored) for a confidential client.
    public func addClient(
        id: String, name: String?, confidential: Bool, redirectURIs: [String], allowedOrigins: [String],
        responseTypes: [String], legacyTokenURL: Bool
    ) async throws -> (Client, secret: String?) {
        guard ClientRules.isValidClientID(id) else {
            throw CaptureError.invalidArgument("client_id", "must be 3-64 letters, digits, '-', '_' or '.'")
        }
        for uri in redirectURIs where !ClientRules.isValidRedirectPattern(uri) {
            throw CaptureError.invalidArgument("redirect_uri", "'\(uri)' must be an absolute http(s) URL or a path")
        }
        for origin in allowedOrigins where URLOrigin(origin) == nil {
            throw CaptureError.invalidArgument("origin", "'\(origin)' is not an http(s) origin")
        }
        for type in responseTypes {
            if let problem = ClientRules.problem(withResponseType: type) { throw CaptureError.invalidArgument("response_type", problem) }
        }
        let secret = confidential ? minter.mint() : nil
        let client = Client(
            clientID: id, name: name ?? id, secretHash: secret.map(TokenMinter.hash), redirectURIs: redirectURIs,
            allowedOrigins: allowedOrigins, responseTypes: responseTypes.isEmpty ? ["token"] : responseTypes,
            legacyTokenURL: legacyTokenURL, createdAt: time.now())
        try await store.clients.insert(client)
        return (client, secret)
    }
}
