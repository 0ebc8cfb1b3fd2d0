import Foundation

/// Janrain Engage's `/signin/oauth_token`, which jump.ios and jump.android call after the app signed in with a
/// provider's own SDK: the provider's token in, the one-time token `/oauth/auth_native` takes out.
public struct NativeProviderSignIn: Sendable, Equatable {
    public var provider: String?
    /// The provider's ID token (or, where the provider's settings allow it, its access token).
    public var token: String?
    /// OAuth 1.0's second half (Twitter, in the SDKs): not supported.
    public var tokenSecret: String?
    /// Optional: binds the one-time token to this clientAccess.client (the SDKs send none; then any client may redeem it).
    public var clientID: String?

    public init(provider: String?, token: String?, tokenSecret: String?, clientID: String?) {
        self.provider = provider
        self.token = token
        self.tokenSecret = tokenSecret
        self.clientID = clientID
    }
}

extension SocialService {
    /// Checks the provider's token (an ID token against the provider's keys, issuer, audience and expiry; or an access
    /// token at userinfo where allowed) and returns a one-time token for `/oauth/auth_native` / `register_native` /
    /// `link_account_native`, which then go on exactly as after a redirect. It lives `SocialLogin.handOffLifetime`.
    public func signInNatively(_ request: NativeProviderSignIn) async throws -> String {
        guard let name = request.provider, !name.isEmpty else { throw CaptureError.missingArgument("provider") }
        guard let provider = social.provider(named: name) else {
            throw CaptureError.invalidArgument("provider", "there is no provider named '\(name)'")
        }
        guard let token = request.token, !token.isEmpty else { throw CaptureError.missingArgument("token") }
        if request.tokenSecret.map({ !$0.isEmpty }) == true {
            throw CaptureError.invalidArgument("token_secret", "OAuth 1.0 providers are not supported")
        }
        // Whoever holds the provider's token could present it with any client id: a binding is asked for, not proved.
        var clientID: String?
        if let asked = request.clientID, !asked.isEmpty { clientID = try await clientAccess.client(id: asked).clientID }
        let identity: ProviderIdentity
        do {
            identity = try await providerIdentities.identify(nativeToken: token, provider: provider)
        } catch let failure as SocialFailure {
            throw CaptureError.notPermitted("the \(provider.name) token was not accepted (\(failure.code)): \(failure.reason)")
        }
        let now = time.now()
        var login = SocialLogin(
            stateHash: TokenMinter.hash(minter.mint()), provider: provider.name, clientID: clientID ?? "", flow: "",
            locale: "", responseType: nil, returnURL: "", nonce: "", codeVerifier: "", createdAt: now)
        let oneTime = minter.mint()
        login.expiresAt = now.addingTimeInterval(-1)  // no redirect to finish: the state is spent from the start
        login.subject = identity.subject
        login.claims = identity.claims
        login.tokenHash = TokenMinter.hash(oneTime)
        login.tokenExpiresAt = now.addingTimeInterval(SocialLogin.handOffLifetime)
        try await socialLogins.insert(login)
        return oneTime
    }
}
