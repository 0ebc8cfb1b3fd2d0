import Foundation

/// Registered clients as the flows and token endpoints see them: lookups through the directory, secrets, redirects.
public struct ClientAccess: Sendable {
    let clients: any ClientRepository
    let clientDirectory: ClientDirectory
    let settings: ServiceSettings
    let time: any TimeSource
}

extension ClientAccess {
    /// The registered client with this id, through `clientDirectory`; `version` is the store's clients version when
    /// the caller read it already (with a token), else it is read here.
    public func registeredClient(_ id: String, version: Int64? = nil) async throws -> Client? {
        let current: Int64
        if let version { current = version } else { current = try await clients.version() }
        return try await clientDirectory.client(id, version: current) { try await clients.find(id: id) }
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
        try checkSecret(secret, of: client)
        return client
    }

    /// A confidential client's secret must be the right one (`Client.accepts`); a public client has none to present.
    func checkSecret(_ secret: String?, of client: Client) throws {
        if client.isConfidential {
            guard let secret, client.accepts(secret: secret, at: time.now()) else { throw CaptureError.invalidClient }
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

}
