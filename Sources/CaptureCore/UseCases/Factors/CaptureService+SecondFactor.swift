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

extension CaptureService {
    /// How long a second-factor ticket or an authenticator set-up waits for its code.
    static let secondFactorLifetime: TimeInterval = 300
    /// Wrong codes a ticket or set-up takes before it is gone.
    static let secondFactorAttempts = 5
    /// In a ticket's parameters: the provider a social sign-in came through (absent after a password).
    static let providerKey = "_provider"

    /// `/second_factor/setup`: a new authenticator secret for the signed-in account, kept sealed until the first
    /// code from the app confirms it. An account that has one turns it off first. The step-up is asked for here:
    /// `/second_factor/confirm` takes only a set-up this made.
    public func beginAuthenticatorSetup(accessToken: String?, proof: StepUpProof) async throws -> AuthenticatorSetup {
        let (user, token) = try await authenticate(accessToken: accessToken)
        if try await store.secondFactors.find(userID: user.id) != nil {
            throw CaptureError.notPermitted("an authenticator app is set up already: turn it off first")
        }
        try await requireStepUp(.setUpAuthenticator, of: user, token: token, proof: proof)
        let secret = minter.random.bytes(TOTP.secretBytes)
        let ticket = minter.mint()
        let now = time.now()
        try await store.ceremonies.insert(
            PendingCeremony(
                hash: TokenMinter.hash(ticket), kind: .totpSetup, userID: user.id, clientID: token.clientID,
                payload: codeKey.seal(secret), createdAt: now, expiresAt: now.addingTimeInterval(Self.secondFactorLifetime * 2)))
        let issuer = settings.clients.first { $0.clientId == token.clientID }?.siteName ?? settings.appID
        return AuthenticatorSetup(
            secret: Base32.grouped(Base32.encode(secret)),
            provisioningURI: TOTP(secret: secret).provisioningURI(issuer: issuer, account: user.email), setupTicket: ticket)
    }

    /// `/second_factor/confirm`: the first code from the app turns the second factor on; the ten recovery codes are
    /// returned this once (only their keyed hashes are kept).
    public func confirmAuthenticatorSetup(accessToken: String?, ticket: String?, code: String?) async throws -> [String] {
        let (user, _) = try await authenticate(accessToken: accessToken)
        guard let ticket, !ticket.isEmpty else { throw CaptureError.missingArgument("setup_ticket") }
        guard let code, !code.isEmpty else { throw CaptureError.missingArgument("code") }
        let now = time.now()
        let key = codeKey
        let confirmed: (step: Int64, sealed: String)? = try await store.ceremonies.use(hash: TokenMinter.hash(ticket)) {
            found in
            guard var setup = found, setup.kind == .totpSetup, setup.userID == user.id, setup.expiresAt > now else {
                return (found, nil)
            }
            guard let secret = key.unseal(setup.payload),
                let step = TOTP(secret: secret).matchingStep(code, at: now, after: nil)
            else {
                setup.attempts += 1
                return (setup.attempts >= Self.secondFactorAttempts ? nil : setup, nil)
            }
            return (nil, (step, setup.payload))
        }
        guard let (step, sealed) = confirmed else { throw CaptureError.invalidSecondFactor }
        let codes = RecoveryCodes.make(minter.random)
        var factor = SecondFactor(
            userID: user.id, sealedSecret: sealed, recoveryHashes: codes.map { key.mac(RecoveryCodes.normalize($0)) },
            createdAt: now)
        factor.lastStep = step
        try await store.secondFactors.save(factor)
        await recordSecurityEvent("second_factor.enabled", target: user.id)
        return codes
    }

    /// `/second_factor/disable`: an authenticator or recovery code turns the second factor off, from a recent
    /// sign-in or with the current password (the code is the factor's own proof).
    public func disableSecondFactor(accessToken: String?, code: String?, proof: StepUpProof) async throws {
        let (user, token) = try await authenticate(accessToken: accessToken)
        guard let code, !code.isEmpty else { throw CaptureError.missingArgument("code") }
        try await requireStepUp(.turnOffAuthenticator, of: user, token: token, proof: proof, factorInRequest: true)
        guard try await spendSecondFactor(code, of: user) else { throw CaptureError.invalidSecondFactor }
        try await store.secondFactors.remove(userID: user.id)
        await recordSecurityEvent("second_factor.disabled", target: user.id)
    }

    /// After the right password (or a provider's sign-in, `provider`): a ticket when the account has a second factor
    /// (thrown as `secondFactorRequired`), a refusal when the client requires one the account lacks; nothing
    /// otherwise.
    func requireSecondFactor(of user: User, _ request: FlowRequest, client: Client, provider: String? = nil) async throws {
        guard try await store.secondFactors.find(userID: user.id) != nil else {
            if settings.clients.first(where: { $0.clientId == client.clientID })?.requireSecondFactor == true {
                throw CaptureError.secondFactorSetupRequired
            }
            return
        }
        var resumable = request.resumable
        resumable[Self.providerKey] = provider
        let ticket = minter.mint()
        let now = time.now()
        try await store.ceremonies.insert(
            PendingCeremony(
                hash: TokenMinter.hash(ticket), kind: .secondFactor, userID: user.id, clientID: client.clientID,
                payload: String(decoding: JSONValue.object(resumable.mapValues(JSONValue.string)).encodedBytes(), as: UTF8.self),
                createdAt: now, expiresAt: now.addingTimeInterval(Self.secondFactorLifetime)))
        throw CaptureError.secondFactorRequired(ticket: ticket)
    }

    /// `/oauth/auth_native_second_factor`: the ticket of a right password and an authenticator or recovery code
    /// finish the sign-in as the password sign-in would have (same client, flow, response type and PKCE). Wrong
    /// codes count against the ticket and against the account as wrong passwords do.
    public func completeSecondFactor(ticket: String?, code: String?, _ request: FlowRequest) async throws -> AuthResult {
        try await countingSignIn(.secondFactor) {
            guard let ticket, !ticket.isEmpty else { throw CaptureError.missingArgument("ticket") }
            guard let code, !code.isEmpty else { throw CaptureError.missingArgument("code") }
            let now = time.now()
            guard let taken = try await store.ceremonies.use(hash: TokenMinter.hash(ticket), { (nil, $0) }),
                taken.kind == .secondFactor, taken.expiresAt > now, taken.clientID == request.clientID,
                let userID = taken.userID, let user = try await store.users.find(id: userID)
            else { throw CaptureError.invalidSecondFactor }
            let attempt: SignInThrottle.Attempt
            do {
                attempt = try await throttle.begin(email: user.email, deviceHash: nil, address: request.remoteAddress, now: now)
            } catch {
                try await store.ceremonies.insert(taken)
                throw error
            }
            guard try await spendSecondFactor(code, of: user) else {
                var again = taken
                again.attempts += 1
                if again.attempts < Self.secondFactorAttempts { try await store.ceremonies.insert(again) }
                throw CaptureError.invalidSecondFactor
            }
            try await throttle.succeeded(attempt, now: time.now())
            var parameters = StoredJSON.object(taken.payload)?.compactMapValues(\.stringValue) ?? [:]
            let provider = parameters.removeValue(forKey: Self.providerKey)
            var resumed = FlowRequest(
                parameters: parameters, remoteAddress: request.remoteAddress, crossOrigin: request.crossOrigin)
            resumed.clientSecret = request.clientSecret
            let context = try await context(of: resumed, takesForm: provider == nil)
            guard let provider else {
                return try await finishPasswordSignIn(
                    user, context: context, request: resumed, device: try await trustedDevice(resumed.deviceToken, of: user))
            }
            var signedIn = user
            signedIn.lastLoginAt = time.now()
            try await store.users.update(signedIn)
            return try await complete(
                context, user: signedIn, isNew: false, refreshSecret: resumed.refreshSecret, provider: provider,
                locale: resumed.locale)
        }
    }

    /// Accepts `code` for the account's second factor once: the step or recovery code is spent in the same write.
    func spendSecondFactor(_ code: String, of user: User) async throws -> Bool {
        let key = codeKey
        let now = time.now()
        return try await store.secondFactors.use(userID: user.id) { factor in
            guard let factor, let next = factor.accepting(code, at: now, key: key) else { return (nil, false) }
            return (next, true)
        }
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
        ]
        for (name, value) in pairs { if let value { values[name] = value } }
        if reactivate { values["reactivate"] = "true" }
        return values
    }
}
