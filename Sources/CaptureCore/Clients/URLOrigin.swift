import Foundation

/// The scheme://host[:port] of an http(s) URL, lower-cased, default ports dropped.
public struct URLOrigin: Equatable, Hashable, Sendable, CustomStringConvertible {
    public let scheme: String
    public let host: String
    public let port: Int?

    public init?(_ string: String) {
        guard let components = URLComponents(string: string),
            let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = components.host?.lowercased(), !host.isEmpty,
            components.user == nil, components.password == nil
        else { return nil }
        self.scheme = scheme
        self.host = host
        let defaultPort = scheme == "https" ? 443 : 80
        self.port = components.port == defaultPort ? nil : components.port
    }

    /// `init(_:)` for text that comes again and again (a backend's `/verify` audience): parsing with `URLComponents`
    /// cost 2 % of a `/verify`. Origins parsed once are kept, at most 256 (a full table starts over); text that is not
    /// an origin is parsed each time and never kept, so it cannot crowd out the rest.
    public static func reused(_ string: String) -> URLOrigin? {
        if let known = parsed.value(string, version: 0) { return known }
        guard let origin = URLOrigin(string) else { return nil }
        parsed.keep(origin, for: string, version: 0)
        return origin
    }

    /// A parse depends on the text alone: one version for ever.
    private static let parsed = VersionedCache<String, URLOrigin>(capacity: 256)

    public var description: String {
        "\(scheme)://\(authority)"
    }

    /// `host[:port]`, the port only when it is not the scheme's default (HTTP/1's `Host`, BrowserID's issuer).
    public var authority: String {
        port.map { "\(host):\($0)" } ?? host
    }
}
