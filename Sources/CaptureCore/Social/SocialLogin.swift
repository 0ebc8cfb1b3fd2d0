import CaptureJSON
import Foundation

/// A social sign-in under way: created when the page sends the user to the provider (`state`), completed when
/// the provider sends them back (who they are there), spent when the page (or a host) redeems the one-time token
/// the service handed over. Secrets are stored hashed where they are only compared (state, token); the nonce and
/// PKCE verifier are needed in clear for the exchange and live at most `lifetime`.
public struct SocialLogin: Sendable, Equatable {
    public var id: Int64?
    public var stateHash: String
    public var provider: String
    public var clientID: String
    public var flow: String
    public var locale: String
    /// What the page that started it asked for; nil for a native sign-in (the app's SDK redeems the provider's token).
    public var responseType: ResponseType?
    /// The page to come back to (allow-listed for the client, fragment removed).
    public var returnURL: String
    public var nonce: String
    public var codeVerifier: String
    /// S256 of the verifier the starter keeps (InitiatorBinding); nil for a token that never travels (native sign-in).
    public var initiatorChallenge: String?
    public var createdAt: Date
    public var expiresAt: Date
    /// Set once the provider answered.
    public var subject: String?
    public var claims: [String: JSONValue]?
    /// The provider's refresh token, sealed (`CodeKey.seal`), when the provider can revoke it: kept with the link so
    /// that deleting the account revokes it (`ProviderRevocation`).
    public var providerToken: String?
    /// The one-time token given to the page for `/oauth/auth_native` (hash), and when it stops working.
    public var tokenHash: String?
    public var tokenExpiresAt: Date?
    public var usedAt: Date?

    /// From the provider's sign-in page back to ours.
    public static let lifetime: TimeInterval = 600
    /// From the callback to the token's first redemption (docs/contract.md §11: a hand-off code lives at most 60 s). The
    /// page redeems it as it loads; a host hands it over as the system browser returns to the app.
    public static let handOffLifetime: TimeInterval = 60
    /// After a first redemption that needs a form (310 `socialRegistration`, 380 merge): the token stays usable
    /// for `register_native` or the merge for this long, while the person types.
    public static let formLifetime: TimeInterval = 900
    /// How long a sign-in is kept once its state ended: longer than its token can live, so purging never cuts one short.
    public static let retention: TimeInterval = handOffLifetime + formLifetime + 60

    public init(
        stateHash: String, provider: String, clientID: String, flow: String, locale: String, responseType: ResponseType?,
        returnURL: String, nonce: String, codeVerifier: String, createdAt: Date
    ) {
        self.stateHash = stateHash
        self.provider = provider
        self.clientID = clientID
        self.flow = flow
        self.locale = locale
        self.responseType = responseType
        self.returnURL = returnURL
        self.nonce = nonce
        self.codeVerifier = codeVerifier
        self.createdAt = createdAt
        self.expiresAt = createdAt.addingTimeInterval(Self.lifetime)
    }
}

extension SocialLogin {
    /// The address the provider gave in `claim`, and whether it vouches for it (ProviderAddress).
    func address(claim: String, trustEmail: Bool) -> ProviderAddress {
        ProviderAddress(claims: claims, claim: claim, trustEmail: trustEmail)
    }
}

/// A provider account linked to a user (Janrain's `profiles`).
public struct LinkedIdentity: Sendable, Equatable {
    public var provider: String
    public var subject: String
    public var userID: String
    /// The address the provider gave when the link was made (shown to the user, never used to sign in).
    public var email: String?
    /// The provider vouched for `email` when the link was made (ProviderAddress). The first proof of a mailbox not
    /// proven before removes every link that was not vouched for that address (`MailboxProof`).
    public var vouched: Bool = false
    public var linkedAt: Date
    public var lastUsedAt: Date?
    /// The provider's refresh token from the last sign-in, sealed (`SocialLogin.providerToken`); never shown.
    public var providerToken: String?

    /// How the record's `profiles` name it, and what `/oauth/unlink_account_native` takes back.
    public var identifier: String { "\(provider):\(subject)" }

    public init(
        provider: String, subject: String, userID: String, email: String?, vouched: Bool = false, linkedAt: Date,
        providerToken: String? = nil
    ) {
        self.provider = provider
        self.subject = subject
        self.userID = userID
        self.email = email
        self.vouched = vouched
        self.linkedAt = linkedAt
        self.providerToken = providerToken
    }
}
