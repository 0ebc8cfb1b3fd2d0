import Foundation

/// Where a client's server API calls may come from (`Client.whitelist`, Janrain's `clients/set_whitelist`): addresses
/// or CIDR ranges, parsed as `TrustedProxies` parses its own. An empty list allows any address, and so does a range of
/// length 0 (`0.0.0.0/0`, Janrain's default, or `::/0`) for both families: a Janrain customer who copies the default
/// means "anywhere", not "IPv4 only". An IPv4 address written as IPv6 (`::ffff:192.0.2.1`) is checked as IPv4.
public struct ClientWhitelist: Sendable, Equatable {
    /// How many entries a client may list.
    public static let maxEntries = 100

    let ranges: [TrustedProxies.Range]
    /// Calls may come from any address.
    public let allowsAnywhere: Bool

    /// Parses `entries` (surrounding blanks ignored); nil when one is not an address or CIDR range, or there are too
    /// many (`problem(with:)` says which).
    public init?(_ entries: [String]) {
        guard Self.problem(with: entries) == nil, let parsed = TrustedProxies(entries.map(Self.trimmed)) else {
            return nil
        }
        ranges = parsed.ranges
        allowsAnywhere = entries.isEmpty || ranges.contains { $0.prefixLength == 0 }
    }

    /// The client's list as stored. Entries are checked before they are stored; one that does not parse (never
    /// written by this service) allows nothing rather than everything.
    public init(of client: Client) {
        if let list = ClientWhitelist(client.whitelist) {
            self = list
        } else {
            ranges = []
            allowsAnywhere = false
        }
    }

    /// Why `entries` cannot be a client's whitelist, or nil.
    public static func problem(with entries: [String]) -> String? {
        guard entries.count <= maxEntries else { return "at most \(maxEntries) addresses or ranges" }
        for entry in entries where TrustedProxies([trimmed(entry)]) == nil {
            return "'\(entry)' is not an IP address or CIDR range such as 192.0.2.0/24"
        }
        return nil
    }

    /// The entries as they are stored: blanks trimmed, order kept.
    public static func normalized(_ entries: [String]) -> [String] { entries.map(trimmed) }

    /// Whether a call from `address` (the caller's address as the trusted proxies vouch for it,
    /// `TrustedProxies.origin`) may use the client. No address is allowed only when every address is.
    public func allows(_ address: String?) -> Bool {
        if allowsAnywhere { return true }
        guard let address, var bytes = IPAddress.bytes(address) else { return false }
        if bytes.count == 16, bytes.prefix(12).elementsEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF]) {
            bytes = Array(bytes.suffix(4))
        }
        return ranges.contains { $0.contains(bytes) }
    }

    private static func trimmed(_ entry: String) -> String { entry.trimmingCharacters(in: .whitespaces) }
}

extension Client {
    /// Whether a server API call from `address` may use this client (`ClientWhitelist`).
    public func allowsCall(from address: String?) -> Bool {
        ClientWhitelist(of: self).allows(address)
    }
}
