extension CaptureService {
    /// `/oauth/auth_native_traditional`: checks the address and password; an unknown address and a wrong
    /// password fail alike (210) and take alike (a decoy bcrypt check). Each attempt is charged to the
    /// throttle before the password is checked (510 when a limit is used up; see `SignInThrottle`).
    public func signIn(_ request: FlowRequest) async throws -> AuthResult {
        try await countingSignIn(.password) { try await signInWithPassword(request) }
    }

    /// Counts the attempt's outcome in `capture_sign_ins_total`.
    func countingSignIn<T>(_ method: SignInMethod, _ attempt: () async throws -> T) async throws -> T {
        do {
            let result = try await attempt()
            metrics.signIn(method, .success)
            return result
        } catch {
            metrics.signIn(method, SignInOutcome(error))
            throw error
        }
    }

    private func signInWithPassword(_ request: FlowRequest) async throws -> AuthResult {
        let context = try await context(of: request)
        let values = try catalog.validate(
            form: context.form, in: context.flow, values: signInFields(request.fields, form: context.form),
            messages: messages(for: request))
        guard let rawEmail = value(for: "email", form: context.form, in: values),
            let password = value(for: "currentPassword", form: context.form, in: values)
        else { throw CaptureError.invalidArgument("form", "'\(context.form)' is not a sign-in form") }
        let email = User.normalize(email: rawEmail)
        let found = try await store.users.find(email: email)
        let device = try await trustedDevice(request.deviceToken, of: found)
        let attempt: SignInThrottle.Attempt
        do {
            attempt = try await throttle.begin(email: email, deviceHash: device, address: request.remoteAddress, now: time.now())
        } catch CaptureError.rateLimited {
            await recordSecurityEvent(
                "signin.burst", target: email, outcome: CaptureError.rateLimited.error,
                detail: "sign-in attempts refused until the limits drain", oncePer: settings.signInWindowSeconds)
            throw CaptureError.rateLimited
        }

        let verified = await hasher.verify(password, hash: found?.passwordHash ?? decoyHash)
        guard verified, var user = found else { throw CaptureError.invalidCredentials }
        try await throttle.succeeded(attempt, now: time.now())
        try admit(user, reactivating: request.reactivate)
        // The right password on an unverified address: a fresh code the page's verifyEmail screen asks for.
        try await requireProvenAddress(of: user, client: context.client, flow: context.flow, locale: request.locale)
        // A cheaper or imported hash is made again at the configured cost, now that the password is at hand.
        if let stored = user.passwordHash, hasher.needsRehash(stored) {
            user.passwordHash = await hasher.hash(password)
            try await store.users.update(user)
        }
        try await requireSecondFactor(of: user, request, client: context.client)
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
            try await mergeSocialLogin(mergeToken, into: user, client: context.client, verifier: request.codeVerifier)
        }
        user.lastLoginAt = time.now()
        try await store.users.update(user)
        var result = try await complete(context, user: user, isNew: false, refreshSecret: request.refreshSecret)
        result.deviceToken = try await deviceToken(for: user, client: context.client, request: request, trusted: device)
        return result
    }

    /// The names Janrain's SDKs fall back to when they have not downloaded the flow: jump.ios sends its static
    /// credentials as `user` (or `email`, `username`) and `password`, jump.android `user` and `password`. They
    /// become the sign-in form's own address and password fields; anything else is left for the validator to refuse.
    func signInFields(_ fields: [String: String], form: String) -> [String: String] {
        let aliases = ["user", "email", "username"]
        guard let password = fields["password"], let nameKey = aliases.first(where: { fields[$0] != nil }),
            fields.count == 2, let emailField = fieldName(for: "email", form: form),
            let passwordField = fieldName(for: "currentPassword", form: form)
        else { return fields }
        return [emailField: fields[nameKey]!, passwordField: password]
    }
}
