import CaptureJSON
import Foundation

/// An authenticator app being set up: what the page shows once.
public struct AuthenticatorSetup: Sendable, Equatable {
    /// The secret in base32, in groups of four, to type into the app.
    public var secret: String
    /// The `otpauth://` link that opens the app with the secret.
    public var provisioningURI: String
    /// What `/second_factor/confirm` takes with the first code.
    public var setupTicket: String
}

extension FactorService {
    /// `/second_factor/setup`: a new authenticator secret for the signed-in account, kept sealed until the first
    /// code from the app confirms it. An account that has one turns it off first. The step-up is asked for here:
    /// `/second_factor/confirm` takes only a set-up this made.
    public func beginAuthenticatorSetup(accessToken: String?, proof: StepUpProof) async throws -> AuthenticatorSetup {
        let (user, token) = try await accessTokens.authenticate(accessToken: accessToken)
        if try await secondFactors.find(userID: user.id) != nil {
            throw CaptureError.notPermitted("an authenticator app is set up already: turn it off first")
        }
        try await stepUp.requireStepUp(.setUpAuthenticator, of: user, token: token, proof: proof)
        let secret = minter.random.bytes(TOTP.secretBytes)
        let ticket = minter.mint()
        let now = time.now()
        try await ceremonies.insert(
            PendingCeremony(
                hash: TokenMinter.hash(ticket), kind: .totpSetup, userID: user.id, clientID: token.clientID,
                payload: codeKey.seal(secret), createdAt: now,
                expiresAt: now.addingTimeInterval(SecondFactorCheck.secondFactorLifetime * 2)))
        let issuer = try await clientSettings.value(ClientSettingKey.siteName, for: token.clientID) ?? settings.appID
        return AuthenticatorSetup(
            secret: Base32.grouped(Base32.encode(secret)),
            provisioningURI: TOTP(secret: secret).provisioningURI(issuer: issuer, account: user.email), setupTicket: ticket)
    }

    /// `/second_factor/confirm`: the first code from the app turns the second factor on; the ten recovery codes are
    /// returned this once (only their keyed hashes are kept).
    public func confirmAuthenticatorSetup(accessToken: String?, ticket: String?, code: String?) async throws -> [String] {
        let (user, _) = try await accessTokens.authenticate(accessToken: accessToken)
        guard let ticket, !ticket.isEmpty else { throw CaptureError.missingArgument("setup_ticket") }
        guard let code, !code.isEmpty else { throw CaptureError.missingArgument("code") }
        let now = time.now()
        let key = codeKey
        let confirmed: (step: Int64, sealed: String)? = try await ceremonies.use(hash: TokenMinter.hash(ticket)) {
            found in
            guard var setup = found, setup.kind == .totpSetup, setup.userID == user.id, setup.expiresAt > now else {
                return (found, nil)
            }
            guard let secret = key.unseal(setup.payload),
                let step = TOTP(secret: secret).matchingStep(code, at: now, after: nil)
            else {
                setup.attempts += 1
                return (setup.attempts >= SecondFactorCheck.secondFactorAttempts ? nil : setup, nil)
            }
            return (nil, (step, setup.payload))
        }
        guard let (step, sealed) = confirmed else { throw CaptureError.invalidSecondFactor }
        let codes = RecoveryCodes.make(minter.random)
        var factor = SecondFactor(
            userID: user.id, sealedSecret: sealed, recoveryHashes: codes.map { key.mac(RecoveryCodes.normalize($0)) },
            createdAt: now)
        factor.lastStep = step
        try await secondFactors.save(factor)
        await audit.recordSecurityEvent("second_factor.enabled", target: user.id)
        return codes
    }

    /// `/second_factor/disable`: an authenticator or recovery code turns the second factor off, from a recent
    /// sign-in or with the current password (the code is the factor's own proof).
    public func disableSecondFactor(accessToken: String?, code: String?, proof: StepUpProof) async throws {
        let (user, token) = try await accessTokens.authenticate(accessToken: accessToken)
        guard let code, !code.isEmpty else { throw CaptureError.missingArgument("code") }
        try await stepUp.requireStepUp(.turnOffAuthenticator, of: user, token: token, proof: proof, factorInRequest: true)
        guard try await secondFactor.spendSecondFactor(code, of: user) else { throw CaptureError.invalidSecondFactor }
        try await secondFactors.remove(userID: user.id)
        await audit.recordSecurityEvent("second_factor.disabled", target: user.id)
    }

}

extension FlowRequest {
    /// The parameters a sign-in resumes with after its second factor: everything but the password and secrets.
    var resumable: [String: String] {
        var values: [String: String] = [:]
        let pairs: [(String, String?)] = [
            ("client_id", clientID), ("flow", flow), ("locale", locale), ("redirect_uri", redirectURI),
            ("response_type", responseType), ("form", form), ("refresh_secret", refreshSecret),
            ("code_challenge", codeChallenge), ("code_challenge_method", codeChallengeMethod),
            ("code_verifier", codeVerifier), ("device_token", deviceToken), ("merge_token", mergeToken),
            ("oidc_request", oidcRequest),
        ]
        for (name, value) in pairs { if let value { values[name] = value } }
        if reactivate { values["reactivate"] = "true" }
        return values
    }
}
