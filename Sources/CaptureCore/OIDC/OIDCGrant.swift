import Foundation

/// What an OpenID Connect sign-in adds to the token chain it starts: the facts its ID tokens repeat (the nonce for the
/// first one only), and the browser session it belongs to, which RP-initiated logout ends with every chain in it.
/// Stored beside the chain's tokens (`OIDCGrantRepository`) for as long as a refresh token of the chain may live.
public struct OIDCGrant: Sendable, Equatable {
    public var chainID: String
    /// The issuer the client asked (`AuthorizationRequest.issuer`).
    public var issuer: String
    public var clientID: String
    public var userID: String
    public var scopes: [String]
    public var nonce: String?
    /// When the person signed in (OpenID Connect's `auth_time`): the session's sign-in, not the code's issue.
    public var authTime: Date
    /// How (`amr`, RFC 8176 names).
    public var methods: [String]
    public var acr: String?
    /// The browser session (`BrowserSession.id`), also the ID token's `sid`.
    public var sessionID: String
    public var expiresAt: Date

    public init(
        chainID: String, issuer: String, clientID: String, userID: String, scopes: [String], nonce: String?, authTime: Date,
        methods: [String], acr: String?, sessionID: String, expiresAt: Date
    ) {
        self.chainID = chainID
        self.issuer = issuer
        self.clientID = clientID
        self.userID = userID
        self.scopes = scopes
        self.nonce = nonce
        self.authTime = authTime
        self.methods = methods
        self.acr = acr
        self.sessionID = sessionID
        self.expiresAt = expiresAt
    }
}

/// How a sign-in proved the person (`amr`, RFC 8176): a password, an authenticator code on top, a passkey (a key
/// bound to one device, or one a platform syncs), or another provider.
public enum AuthenticationMethods {
    /// `provider` as token chains record it: `capture` (a password), `passkey`, else a social provider's name.
    public static func of(provider: String, secondFactor: Bool = false, syncedPasskey: Bool = false) -> [String] {
        var methods: [String]
        switch provider {
        case "capture": methods = ["pwd"]
        case "passkey": methods = [syncedPasskey ? "swk" : "hwk"]
        default: methods = ["fed"]
        }
        if secondFactor { methods += ["otp", "mfa"] }
        return methods
    }
}
