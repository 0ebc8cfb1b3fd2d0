/// Registration and sign-in with a password, their second step and the terms they wait for.
public struct SignInService: Sendable {
    let users: any UserRepository
    let throttle: SignInThrottle
    let hasher: any PasswordHasher
    let decoyHash: String
    let time: any TimeSource
    let metrics: CaptureMetrics
    let ceremonies: any CeremonyRepository
    let catalog: FlowCatalog
    let settings: ServiceSettings
    let minter: TokenMinter
    let steps: FlowSteps
    let admission: Admission
    let terms: TermsGate
    let issuer: TokenIssuer
    let audit: AuditTrail
    let writer: RecordWriter
    let oneTimeCodes: OneTimeCodes
    let provenAddress: ProvenAddress
    let secondFactor: SecondFactorCheck
    let providerLinks: ProviderLinks
    let migration: LegacyMigration
}

extension SignInService {
    /// `/oauth/auth_native_traditional`: checks the address and password; an unknown address and a wrong
    /// password fail alike (210) and take alike (a decoy bcrypt check). Each attempt is charged to the
    /// throttle before the password is checked (510 when a limit is used up; see `SignInThrottle`), and before the
    /// old Janrain app is asked about an address with no local password (`LegacyMigration`).
    public func signIn(_ request: FlowRequest) async throws -> AuthResult {
        try await metrics.countingSignIn(.password) { try await signInWithPassword(request) }
    }

    private func signInWithPassword(_ request: FlowRequest) async throws -> AuthResult {
        let context = try await steps.context(of: request)
        let values = try catalog.validate(
            form: context.form, in: context.flow, values: signInFields(request.fields, form: context.form),
            messages: catalog.messages(for: request))
        guard let rawEmail = steps.value(for: "email", form: context.form, in: values),
            let password = steps.value(for: "currentPassword", form: context.form, in: values)
        else { throw CaptureError.invalidArgument("form", "'\(context.form)' is not a sign-in form") }
        let email = User.normalize(email: rawEmail)
        let found = try await users.find(email: email)
        let device = try await issuer.trustedDevice(request.deviceToken, of: found)
        let attempt: SignInThrottle.Attempt
        do {
            attempt = try await throttle.begin(email: email, deviceHash: device, address: request.remoteAddress, now: time.now())
        } catch CaptureError.rateLimited {
            await audit.recordSecurityEvent(
                "signin.burst", target: email, outcome: CaptureError.rateLimited.error,
                detail: "sign-in attempts refused until the limits drain", oncePer: settings.signInWindowSeconds)
            throw CaptureError.rateLimited
        }

        let verified = await hasher.verify(password, hash: found?.passwordHash ?? decoyHash)
        var checked = verified ? found : nil
        // No local password to check (an address unknown here, or a record without a hash): until the cutover the
        // old Janrain app is asked once (`LegacyMigration`); its "no", or no answer, is this refusal too.
        if !verified, migration.asks(for: found, now: time.now()) {
            checked = await migration.signIn(email: email, password: password, found: found)
        }
        guard var user = checked else {
            if let found {
                // A wrong password for an account: one audit row per window (the webhooks' signInFailed), written
                // beside the reply so that an account's refusal takes no longer than an unknown address's.
                Task { [audit, window = settings.signInWindowSeconds] in
                    await audit.recordSecurityEvent(
                        "signin.failed", target: found.id, outcome: "refused", detail: nil, oncePer: window)
                }
            }
            throw CaptureError.invalidCredentials
        }
        try await throttle.succeeded(attempt, now: time.now())
        try admission.admit(user, reactivating: request.reactivate)
        // The right password on an unverified address: a fresh code the page's verifyEmail screen asks for.
        try await provenAddress.requireProvenAddress(of: user, client: context.client, flow: context.flow, locale: request.locale)
        // A cheaper or imported hash (bcrypt at a lower cost, or a legacy format) is made again at the configured
        // cost, now that the password is at hand; it is written with the sign-in time, in one update.
        var rehashed = false
        if let stored = user.passwordHash, hasher.needsRehash(stored) {
            user.passwordHash = await hasher.hash(password)
            rehashed = true
        }
        do {
            try await secondFactor.requireSecondFactor(of: user, request, client: context.client)
        } catch {
            // A second step is due: the password is not sent again with it, so the new hash is kept now.
            if rehashed { try await users.update(user) }
            throw error
        }
        return try await finishPasswordSignIn(user, context: context, request: request, device: device)
    }

    /// The rest of a password sign-in, once every factor it needs is proven: the merge it completes, the sign-in
    /// time, the tokens or code, a device token (`device`: the stored key of the caller's, when it is the account's).
    func finishPasswordSignIn(
        _ user: User, context: FlowContext, request: FlowRequest, device: String?
    ) async throws
        -> AuthResult
    {
        var user = user
        if let mergeToken = request.mergeToken {
            try await providerLinks.mergeSocialLogin(
                mergeToken, into: user, client: context.client, verifier: request.codeVerifier)
        }
        user.lastLoginAt = time.now()
        try await users.update(user)
        var result = try await steps.complete(context, user: user, isNew: false, refreshSecret: request.refreshSecret)
        result.deviceToken = try await issuer.deviceToken(for: user, client: context.client, request: request, trusted: device)
        return result
    }

    /// The names Janrain's SDKs fall back to when they have not downloaded the flow: jump.ios sends its static
    /// credentials as `user` (or `email`, `username`) and `password`, jump.android `user` and `password`. They
    /// become the sign-in form's own address and password fields; anything else is left for the validator to refuse.
    func signInFields(_ fields: [String: String], form: String) -> [String: String] {
        let aliases = ["user", "email", "username"]
        guard let password = fields["password"], let nameKey = aliases.first(where: { fields[$0] != nil }),
            fields.count == 2, let emailField = steps.fieldName(for: "email", form: form),
            let passwordField = steps.fieldName(for: "currentPassword", form: form)
        else { return fields }
        return [emailField: fields[nameKey]!, passwordField: password]
    }
}
