extension CaptureService {
    /// `/oauth/auth_native_traditional`: checks the address and password; an unknown address and a wrong
    /// password fail alike (210) and take alike (a decoy bcrypt check), and repeated failures are throttled (510).
    public func signIn(_ request: FlowRequest) async throws -> AuthResult {
        let context = try await context(of: request)
        let values = try catalog.validate(form: context.form, in: context.flow, values: request.fields)
        guard let rawEmail = value(for: "email", form: context.form, in: values),
            let password = value(for: "currentPassword", form: context.form, in: values)
        else { throw CaptureError.invalidArgument("form", "'\(context.form)' is not a sign-in form") }
        let email = User.normalize(email: rawEmail)
        let keys = ["email:" + email] + (request.remoteAddress.map { [SignInThrottle.networkAddressPrefix + $0] } ?? [])
        guard await !throttle.isBlocked(keys, now: time.now()) else { throw CaptureError.rateLimited }

        let user = try await store.users.find(email: email)
        let verified = await hasher.verify(password, hash: user?.passwordHash ?? decoyHash)
        guard verified, var user else {
            await throttle.recordFailure(keys, now: time.now())
            throw CaptureError.invalidCredentials
        }
        guard !user.isDisabled else { throw CaptureError.accountDeactivated }
        await throttle.reset(["email:" + email])
        user.lastLoginAt = time.now()
        try await store.users.update(user)
        return try await complete(context, user: user, isNew: false, refreshSecret: request.refreshSecret)
    }
}
