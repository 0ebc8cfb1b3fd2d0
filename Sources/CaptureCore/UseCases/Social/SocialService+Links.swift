extension SocialService {
    /// `/oauth/link_account_native`: a signed-in user adds a provider account (the `token` of a social sign-in
    /// they just made) to their own record. A provider account another user holds is refused; one already theirs
    /// is fine. An account whose address is not proven links nothing: a link is how a pre-hijacked account would
    /// keep its intruder, so the mailbox's owner proves it first.
    public func linkAccount(_ request: FlowRequest) async throws -> User {
        let (user, access) = try await accessTokens.authenticate(accessToken: request.accessToken)
        let context = try await steps.context(of: request, takesForm: false)
        guard access.clientID == context.client.clientID else {
            throw CaptureError.notPermitted("this access_token was issued to another client")
        }
        guard user.emailVerifiedAt != nil else {
            throw CaptureError.notPermitted("confirm this account's email address before linking another sign-in to it")
        }
        try await stepUp.requireStepUp(.linkProvider, of: user, token: access, proof: request.stepUp)
        let login = try await providerLinks.pendingSocialLogin(
            request.socialToken, client: context.client, verifier: request.codeVerifier)
        guard let subject = login.subject else { throw ProviderLinks.unusableSocialToken }
        if let linked = try await identities.find(provider: login.provider, subject: subject) {
            guard linked.userID == user.id else {
                throw CaptureError.notPermitted("this \(login.provider) account is linked to another user")
            }
            try await providerLinks.spend(login)
            return user
        }
        try await providerLinks.spend(login)
        try await identities.link(providerLinks.linkedIdentity(login, subject: subject, user: user))
        return user
    }

    /// `/oauth/unlink_account_native` (`identifier_to_remove`, as the record's `profiles` name it). An account
    /// keeps a way in: its last provider account goes only when it has a password.
    public func unlinkAccount(accessToken: String?, identifier: String?, proof: StepUpProof) async throws -> User {
        let (user, token) = try await accessTokens.authenticate(accessToken: accessToken)
        guard let identifier, !identifier.isEmpty else { throw CaptureError.missingArgument("identifier_to_remove") }
        try await stepUp.requireStepUp(.unlinkProvider, of: user, token: token, proof: proof)
        let linked = try await identities.list(userID: user.id)
        guard let identity = linked.first(where: { $0.identifier == identifier }) else {
            throw CaptureError.recordNotFound("linked account '\(identifier)'")
        }
        if linked.count == 1 && user.passwordHash == nil {
            throw CaptureError.notPermitted(
                "this is the only way to sign in to this account: set a password (forgot password) before unlinking it")
        }
        // Only the account named: another account of the same provider linked to this user stays.
        try await identities.unlink(provider: identity.provider, subject: identity.subject, userID: user.id)
        return user
    }

}
