import Foundation

/// What a token check reads for a presented token's key, in one snapshot: the token, who its account is, the clients'
/// version (in which the check finds the token's client, `ClientDirectory`, without a read of its own) and, as deep
/// as the caller asks (`Depth`), the user and its stored record. Judging it (kind, state, expiry, a deactivated
/// account) is the caller's: storage answers what is stored, a cache what was stored and has not changed since.
public struct TokenCheck: Sendable, Equatable {
    /// How much of the account a check reads.
    public enum Depth: Sendable, Equatable {
        /// Who the account is and whether it may be used (`account`): introspection, `/verify`.
        case account
        /// The user, its profile parsed (`user`): the SDK calls made with an access token.
        case user
        /// The user with its record as stored (`user` without its profile, `storedProfile`, `profiles`, `passkeys`):
        /// `/entity`, whose reply is written from the stored text (`EntityEncoder.write`).
        case record
    }

    public let record: TokenRecord
    /// Who the token's account is; nil when the account is gone.
    public let account: AccountSummary?
    public let clientsVersion: Int64
    /// The token's user (`.user`, `.record`); nil when gone, and at `.account`.
    public let user: User?
    /// The user's profile as stored (`.record`); nil when the user is gone, and above `.record`.
    public let storedProfile: String?
    /// The user's linked provider accounts and passkeys (`.record`).
    public let profiles: [LinkedIdentity]
    public let passkeys: [Passkey]

    /// A check read at `.account`.
    public init(record: TokenRecord, account: AccountSummary?, clientsVersion: Int64) {
        self.record = record
        self.account = account
        self.clientsVersion = clientsVersion
        user = nil
        storedProfile = nil
        profiles = []
        passkeys = []
    }

    /// A check read at `.user` or `.record`: its account is the user's.
    public init(
        record: TokenRecord, user: User?, clientsVersion: Int64, storedProfile: String? = nil,
        profiles: [LinkedIdentity] = [], passkeys: [Passkey] = []
    ) {
        self.record = record
        self.account = user.map {
            AccountSummary(id: $0.id, email: $0.email, emailVerified: $0.emailVerifiedAt != nil, disabledAt: $0.disabledAt)
        }
        self.clientsVersion = clientsVersion
        self.user = user
        self.storedProfile = storedProfile
        self.profiles = profiles
        self.passkeys = passkeys
    }
}

/// Token checks: `/oauth/introspect`, `/verify`, `/entity` and the SDK calls made with an access token ask this, and
/// nothing else. Each backend answers from its engine (one statement for the common case); `CaptureCache` puts a
/// cache in front of it (`CachedTokenChecks`) where it can hear every change.
public protocol TokenChecks: Sendable {
    /// The check of the token whose key (`TokenMinter.key`) is `key`, read to `depth`; nil when no token has it.
    func check(_ key: String, _ depth: TokenCheck.Depth) async throws -> TokenCheck?
}
