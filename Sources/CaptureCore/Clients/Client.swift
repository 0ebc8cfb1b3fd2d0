import Foundation

/// A registered app or backend: who may ask for tokens, and where they may be sent.
public struct Client: Sendable, Equatable {
    public var clientID: String
    public var name: String
    /// SHA-256 hex of the secret; nil for a public (native) client.
    public var secretHash: String?
    /// The secret sealed under the code key (`ClientSecrets`), for checking Janrain-signed requests, which are signed
    /// with the secret itself; nil for a public client and for one whose secret was made before secrets were sealed
    /// (it signs requests again after `clients/reset_secret`).
    public var sealedSecret: String?
    /// The secret it had before a rotation that kept the old one for a while (`RetiringSecret`), until then.
    public var retiringSecret: RetiringSecret?
    /// Absolute URLs, or paths starting with "/" that resolve against the service's public origin.
    public var redirectURIs: [String]
    public var allowedOrigins: [String]
    /// What its sign-ins may hand back (`ResponseType`).
    public var responseTypes: [ResponseType]
    public var legacyTokenURL: Bool
    public var accessTokenLifeHours: Double?
    /// A password change normally ends the user's other sessions (OWASP); a client may keep them.
    public var keepSessionsOnPasswordChange: Bool = false
    /// Users whose address is not verified may not sign in through this client (they get code 112).
    public var requireVerifiedEmail: Bool = false
    /// `/verify` answers `okay` for an address not proven yet too (saying `email_verified: false`); off, it asserts
    /// only proven addresses, as a BrowserID verifier's `okay` means "this person controls this address".
    public var allowUnverifiedEmail: Bool = false
    /// Its Janrain client settings (`site_name`, `verify_email_url`, …) are not here: they are stored apart, over the
    /// app's defaults, and read through `ClientSettingsAccess` (docs/adr/0063-client-settings-in-the-database.md).
    /// What it may call on Janrain's server API (`ClientFeature`); an app's sign-in client is `login_client` only.
    public var features: Set<ClientFeature> = [.loginClient]
    /// Addresses or CIDR ranges its server API calls may come from (Janrain's `whitelist`); empty: anywhere.
    public var whitelist: [String] = []
    public var createdAt: Date

    public init(
        clientID: String, name: String, secretHash: String? = nil, redirectURIs: [String] = [],
        allowedOrigins: [String] = [], responseTypes: [ResponseType] = [.token], legacyTokenURL: Bool = false,
        accessTokenLifeHours: Double? = nil, createdAt: Date
    ) {
        self.clientID = clientID
        self.name = name
        self.secretHash = secretHash
        self.redirectURIs = redirectURIs
        self.allowedOrigins = allowedOrigins
        self.responseTypes = responseTypes
        self.legacyTokenURL = legacyTokenURL
        self.accessTokenLifeHours = accessTokenLifeHours
        self.createdAt = createdAt
    }

    public var isConfidential: Bool { secretHash != nil }

    /// The origins the client's pages and apps run on: its allowed origins and the origins of its redirect URIs
    /// (path-only redirect URIs live on this service's own origin, `publicOrigin`).
    public func origins(publicOrigin: String) -> Set<URLOrigin> {
        let uris = allowedOrigins + redirectURIs.map { $0.hasPrefix("/") ? publicOrigin + $0 : $0 }
        return Set(uris.compactMap(URLOrigin.init))
    }
}

/// Rules about client ids, redirect URIs and response types, shared by settings, the CLI and the service.
public enum ClientRules {
    /// Why `type` cannot be given to a client, or nil when it can.
    public static func problem(withResponseType type: String) -> String? {
        ResponseType(rawValue: type) != nil ? nil : "unknown response type '\(type)' (token, code or code_and_token)"
    }

    public static func isValidClientID(_ id: String) -> Bool {
        (3...64).contains(id.count)
            && id.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) || "-_.".unicodeScalars.contains($0) }
            && id.allSatisfy(\.isASCII)
    }

    public static func isValidRedirectPattern(_ uri: String) -> Bool {
        if uri.contains("#") { return false }
        if uri.hasPrefix("/") { return !uri.hasPrefix("//") }
        return URLOrigin(uri) != nil || appReturnKey(uri) != nil
    }

    /// A native app's return address with a private-use scheme in reverse-DNS form (RFC 8252 §7.1), such as
    /// `com.example.app:/social`: scheme and path, query and fragment dropped. Nil for anything else.
    public static func appReturnKey(_ uri: String) -> String? {
        guard let colon = uri.firstIndex(of: ":") else { return nil }
        let scheme = uri[..<colon]
        guard scheme.contains("."), !scheme.hasPrefix("."), !scheme.hasSuffix("."), scheme.count <= 100,
            scheme.utf8.allSatisfy({ ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 46 || $0 == 45 || $0 == 43 }),
            let first = scheme.utf8.first, first >= 97 && first <= 122
        else { return nil }
        let rest = uri[uri.index(after: colon)...]
        let path = rest.prefix { $0 != "?" && $0 != "#" }
        guard path.hasPrefix("/"), path.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\\") }) else {
            return nil
        }
        return "\(scheme):\(path)"
    }

    /// Whether a browser page at `origin` (a request's `Origin` header, other than the service's own page) may use
    /// a client's flows: only the service's public origin and the client's allowed origins may. `null` (sandboxed
    /// frames, `file:` pages) never may.
    public static func acceptsOrigin(_ origin: String, allowed: [String], publicOrigin: String) -> Bool {
        guard let caller = URLOrigin(origin) else { return false }
        return ([publicOrigin] + allowed).contains { URLOrigin($0) == caller }
    }

    /// The registered redirect URI `candidate` is, or nil (RFC 6749 §3.1.2.2, RFC 9700 §4.1.3: exact matching).
    /// Only the scheme's and host's letter case fold, and an empty path is `/` (RFC 3986 §6.2.3); a port, a
    /// percent-encoding, a non-ASCII character or a query the entry does not have makes another URI, and a fragment
    /// never matches. One exception: an entry that is a path on this service (a flow page) takes any query, because
    /// the page sends its own address with the parameters it was opened with (docs/contract.md §2 `capture.redirectUri`).
    public static func matchRedirect(_ candidate: String, allowed: [String], publicOrigin: String) -> String? {
        if appReturnKey(candidate) != nil {
            return candidate.contains("#") || candidate.contains("?") ? nil : allowed.first { $0 == candidate }
        }
        guard let supplied = ExactURI(candidate) else { return nil }
        for entry in allowed {
            let ours = entry.hasPrefix("/")
            let absolute = ours ? publicOrigin + entry : entry
            guard let registered = ExactURI(absolute) else { continue }
            if supplied.scheme == registered.scheme && supplied.authority == registered.authority
                && supplied.path == registered.path && (ours || supplied.query == registered.query)
            {
                return absolute
            }
        }
        return nil
    }
}

/// An http(s) URI in the parts exact matching compares: scheme and authority lower-cased, the path (`/` when empty)
/// and the query as written. Nil for anything else, for non-ASCII text, user information and fragments.
struct ExactURI: Equatable {
    var scheme: String
    var authority: String
    var path: String
    var query: String?

    init?(_ text: String) {
        guard text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }), !text.contains("#"),
            let separator = text.range(of: "://")
        else { return nil }
        scheme = text[..<separator.lowerBound].lowercased()
        guard scheme == "http" || scheme == "https" else { return nil }
        let rest = text[separator.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        authority = rest[..<authorityEnd].lowercased()
        guard !authority.isEmpty, !authority.contains("@") else { return nil }
        let tail = rest[authorityEnd...]
        let queryStart = tail.firstIndex(of: "?")
        let path = queryStart.map { tail[..<$0] } ?? tail
        self.path = path.isEmpty ? "/" : String(path)
        query = queryStart.map { String(tail[tail.index(after: $0)...]) }
    }
}
