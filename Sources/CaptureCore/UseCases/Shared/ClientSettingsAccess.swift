/// Janrain's client settings as everything that reads them sees them: a client's own value over the app's default.
/// The one owner of those reads (the mails' site name and links, the pages' client settings, the authenticator's
/// issuer, `settings/items`). Each client's merged settings are kept under the clients version (a change of any
/// setting is a change of the clients), so a page or a mail reads no settings row while nothing changed.
public struct ClientSettingsAccess: Sendable {
    let clients: any ClientRepository
    let clientSettings: any ClientSettingsRepository
    let merged = VersionedCache<String, [String: String]>(capacity: ClientDirectory.capacity)
}

extension ClientSettingsAccess {
    /// `clientID`'s settings over the defaults; `version` is the clients version when the caller read it already.
    public func items(for clientID: String, version: Int64? = nil) async throws -> [String: String] {
        let current: Int64
        if let version { current = version } else { current = try await clients.version() }
        if let known = merged.value(clientID, version: current) { return known }
        let defaults = try await clientSettings.values(of: .defaults)
        let own = try await clientSettings.values(of: .client(clientID))
        let items = defaults.merging(own) { _, own in own }
        merged.keep(items, for: clientID, version: current)
        return items
    }

    /// One setting of `clientID`, its own or the default.
    public func value(_ key: String, for clientID: String, version: Int64? = nil) async throws -> String? {
        try await items(for: clientID, version: version)[key]
    }

    /// The client's pages (`ClientPages.init(items:of:)`): its site name and the pages its mailed links open.
    public func pages(of client: Client, version: Int64? = nil) async throws -> ClientPages {
        ClientPages(items: try await items(for: client.clientID, version: version), of: client)
    }
}
