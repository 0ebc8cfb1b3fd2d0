import Foundation

/// Pending provider sign-ins and the links they make to accounts.
public struct ProviderLinks: Sendable {
    let socialLogins: any SocialLoginRepository
    let identities: any IdentityRepository
    let social: SocialProviders
    let time: any TimeSource
}

extension ProviderLinks {
    /// A sign-in that carried `merge_token` (traditional, or social with the provider a 380 named): once it reached
    /// the account, the earlier social sign-in's provider account is linked to it (the merge Janrain's SDKs finish
    /// this way). A merge only follows a 380 for the account's own address, so a token whose provider gave another
    /// address is refused: a merge token leaked from a URL cannot link someone's provider account to another account.
    /// The provider must vouch for the account's address (ProviderAddress): an address it merely names proves nothing.
    func mergeSocialLogin(_ token: String, into user: User, client: Client, verifier: String?) async throws {
        let login = try await pendingSocialLogin(token, client: client, verifier: verifier, argument: "merge_token")
        guard let subject = login.subject else { throw Self.unusableSocialToken }
        guard address(of: login).vouches(for: user.email) else {
            throw CaptureError.invalidArgument("merge_token", "is for another address than this account's")
        }
        try await spend(login)
        if let linked = try await identities.find(provider: login.provider, subject: subject) {
            guard linked.userID == user.id else {
                throw CaptureError.notPermitted("this \(login.provider) account is linked to another user")
            }
            return
        }
        try await identities.link(linkedIdentity(login, subject: subject, user: user))
    }

    /// The address the provider gave, through its claim mapping, and whether it vouches for it.
    func address(of login: SocialLogin) -> ProviderAddress {
        let settings = social.provider(named: login.provider)?.settings
        return login.address(claim: settings?.emailClaim ?? "email", trustEmail: settings?.trustEmail == true)
    }

    /// The link a social sign-in makes to `user`, vouched when the provider vouches for the account's address.
    func linkedIdentity(_ login: SocialLogin, subject: String, user: User) -> LinkedIdentity {
        let address = address(of: login)
        return LinkedIdentity(
            provider: login.provider, subject: subject, userID: user.id, email: address.given,
            vouched: address.vouches(for: user.email), linkedAt: time.now(), providerToken: login.providerToken)
    }

    static let unusableSocialToken = CaptureError.invalidArgument("token", "is unknown, expired or already used")

    /// The completed social sign-in a token names, for this client, not yet spent (read only). A token that travelled
    /// through a redirect needs its starter's `verifier` (InitiatorBinding); a wrong one is the same refusal as an
    /// unknown token.
    func pendingSocialLogin(
        _ token: String?, client: Client, verifier: String?, argument: String = "token"
    ) async throws -> SocialLogin {
        guard let token, !token.isEmpty else { throw CaptureError.missingArgument(argument) }
        let now = time.now()
        let found = try await socialLogins.use(tokenHash: TokenMinter.hash(token)) { login in (nil, login) }
        // A native sign-in's token names no client unless its caller asked (`/signin/oauth_token`): any may redeem it.
        guard let found, found.usedAt == nil, let expires = found.tokenExpiresAt, expires > now,
            found.clientID == client.clientID || found.clientID.isEmpty, found.subject != nil,
            InitiatorBinding.admits(verifier, challenge: found.initiatorChallenge)
        else { throw CaptureError.invalidArgument(argument, "is unknown, expired or already used") }
        return found
    }

    /// A first redemption that ends on a form (310, 380): the token outlives its hand-off minute, for the form.
    func keepForForm(_ login: SocialLogin) async throws {
        let until = time.now().addingTimeInterval(SocialLogin.formLifetime)
        try await socialLogins.use(stateHash: login.stateHash) { found -> (SocialLogin?, Void) in
            guard var found, found.usedAt == nil, (found.tokenExpiresAt ?? until) < until else { return (nil, ()) }
            found.tokenExpiresAt = until
            return (found, ())
        }
    }

    /// Spends the token in one transaction: of two requests racing with it, one wins.
    func spend(_ login: SocialLogin) async throws {
        let now = time.now()
        let spent = try await socialLogins.use(stateHash: login.stateHash) { found -> (SocialLogin?, Bool) in
            guard var found, found.usedAt == nil else { return (nil, false) }
            found.usedAt = now
            found.providerToken = nil  // the link keeps it from now on
            return (found, true)
        }
        guard spent else { throw Self.unusableSocialToken }
    }

}

extension ProviderLinks {
    /// The provider accounts linked to a user, for operators.
    public func linkedAccounts(of user: User) async throws -> [LinkedIdentity] {
        try await identities.list(userID: user.id)
    }
}
