import Foundation

/// What a token is for.
public enum TokenKind: String, Codable, Sendable, CaseIterable {
    case access, refresh, code
    /// Marks a device its owner signed in on: attempts from it are throttled apart from everyone else's
    /// (docs/adr/0022-sign-in-throttling.md). It authorizes nothing.
    case device
    /// Given to a flow page with an authorization code (the page holds no token then): revokes its sign-in's chain
    /// at `/oauth/revoke` and authorizes nothing else (docs/adr/0012-sign-out-token.md).
    case signOut = "sign_out"

    /// False for the kinds that grant no access at all (device and sign-out tokens): introspection calls them inactive.
    public var authorizes: Bool { self != .device && self != .signOut }
}

/// A stored token: only its SHA-256 hash is kept, never the token itself.
public struct TokenRecord: Sendable, Equatable {
    public var id: Int64?
    public var kind: TokenKind
    /// The lookup key, `TokenMinter.key(token)`: lower-case hex, the mint time then the SHA-256 of the token (only the
    /// SHA-256 for tokens minted before time-led keys).
    public var hash: String
    public var userID: String
    public var clientID: String
    /// All tokens of one sign-in share a chain; refresh rotation keeps it, reuse revokes it.
    public var chainID: String
    public var scope: String
    public var authProvider: String
    public var issuedAt: Date
    public var expiresAt: Date
    /// When a refresh token was rotated or a code redeemed.
    public var usedAt: Date?
    public var revokedAt: Date?
    /// Client-chosen HMAC key for `/oauth/refresh_access_token` (sent at sign-in), kept on every token of the chain.
    public var refreshSecret: String?
    /// An authorization code's redirect URI (origin + path) and PKCE S256 challenge, checked at the exchange.
    public var redirectURI: String?
    public var codeChallenge: String?
    /// The device the chain's sign-in came from (`DeviceHint`), kept on every token of the chain.
    public var device: String?

    public init(
        kind: TokenKind, hash: String, userID: String, clientID: String, chainID: String, scope: String = "",
        authProvider: String = "capture", issuedAt: Date, expiresAt: Date, refreshSecret: String? = nil
    ) {
        self.kind = kind
        self.hash = hash
        self.userID = userID
        self.clientID = clientID
        self.chainID = chainID
        self.scope = scope
        self.authProvider = authProvider
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.refreshSecret = refreshSecret
    }

    /// A short, non-secret handle for operators: the first 12 hex digits of the token's SHA-256.
    public var fingerprint: String { Self.fingerprint(ofKey: hash) }

    /// The fingerprint of the token stored under `key`: the mint time a key starts with is left out.
    public static func fingerprint(ofKey key: String) -> String { String(key.suffix(64).prefix(12)) }

    /// Lengths of a stored key: the SHA-256 alone (tokens minted before time-led keys), and with the mint time.
    public static let keyLengths = (plain: 64, timeLed: 64 + TokenKey.timeDigits)

    /// The one state whose `TokenState.stored` conditions the token's times meet at `now`.
    public func state(at now: Date) -> TokenState {
        TokenState.allCases.first { $0.stored.holds(revokedAt: revokedAt, usedAt: usedAt, expiresAt: expiresAt, at: now) }
            ?? .active
    }
}
