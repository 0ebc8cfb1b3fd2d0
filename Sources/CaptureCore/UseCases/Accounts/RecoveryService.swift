/// Password recovery and address verification by mailed code.
public struct RecoveryService: Sendable {
    let users: any UserRepository
    let tokens: any TokenRepository
    let throttle: SignInThrottle
    let codes: any CodeRepository
    let hasher: any PasswordHasher
    let time: any TimeSource
    let metrics: CaptureMetrics
    let catalog: FlowCatalog
    let steps: FlowSteps
    let audit: AuditTrail
    let oneTimeCodes: OneTimeCodes
    let addressChange: AddressChange
    let mailboxProof: MailboxProof
    let migration: LegacyMigration
}

extension RecoveryService {
    /// `/oauth/forgot_password_native`: sends a reset code to the address of `forgotPasswordForm`. The reply is the
    /// same, and takes the same time, whether or not the address has an account; requests are rate limited per
    /// address and per network address.
    public func requestPasswordReset(_ request: FlowRequest) async throws {
        let (context, email) = try await codeRequest(request, at: .forgotPassword)
        var user = try await users.find(email: email)
        // An address only the old Janrain app knows, until the cutover: its record is brought here first
        // (`LegacyMigration`), so the reset is mailed and redeemed here. The reply does not say which happened.
        if user == nil { user = await migration.recover(email: email) }
        try await oneTimeCodes.sendCode(.passwordReset, to: email, user: user, context: context, locale: request.locale)
    }

    /// `/oauth/reset_password_native`: a reset code and a new password (`resetPasswordForm`). The code proves the
    /// mailbox: the password changes, every session of the user ends, the address counts as verified, the
    /// sign-in lockout of the account is lifted, and a first proof ends provider links nobody vouched for. The code of
    /// an address change's notice (`restoreAddress`) works here too: it also gives the account its old address
    /// back, and ends the links not vouched for that address.
    public func resetPassword(_ request: FlowRequest, code: String?, email: String?) async throws -> User {
        let context = try await steps.context(of: request, issuesTokens: false)
        let values = try catalog.validate(
            form: context.form, in: context.flow, values: request.fields, messages: catalog.messages(for: request))
        guard let password = steps.value(for: "password", form: context.form, in: values) else {
            throw CaptureError.invalidArgument(
                "form", "'\(context.form)' is not a reset form\(servedElsewhere(request, not: .resetPassword))")
        }
        let messages = catalog.messages(for: request)
        let entry = try await oneTimeCodes.codeEntry(
            code, email: email, screen: .passwordReset, requester: request.remoteAddress, messages: messages)
        let restored = try await addressChange.restoreAddress(entry, email: email)
        var user: User
        if let restored {
            user = restored
        } else {
            user = try await oneTimeCodes.redeemCode(entry, email: email, purpose: .passwordReset, messages: messages)
        }
        try await mailboxProof.endUnprovenLinks(
            of: user, wasProven: restored == nil && user.emailVerifiedAt != nil, locale: request.locale)
        let now = time.now()
        user.passwordHash = await hasher.hash(password)
        user.emailVerifiedAt = user.emailVerifiedAt ?? now
        user.updatedAt = now
        try await users.update(user)
        metrics.revoked(try await tokens.revokeAll(userID: user.id, at: now), .passwordReset)
        try await throttle.ownerProved(email: user.email, address: request.remoteAddress, now: now)
        await audit.recordSecurityEvent(
            "password.reset", target: user.id, detail: "reset with a mailed code; every session revoked")
        return user
    }

    /// `/access/checkResetCode`: whether a mailed reset link's code is live for its address, without spending it, so
    /// the reset screen says at once that a link is spent or expired instead of after a new password is typed. A typed
    /// code is charged to `requester` as at reset (`CodeGuessing`): checking is no better a way to guess. The code of
    /// an address change's notice, which resets too, passes as well. A refusal speaks `locale` (else `acceptLanguage`).
    public func checkResetCode(
        code: String?, email: String?, locale: String? = nil, acceptLanguage: String? = nil, requester: String? = nil
    ) async throws {
        let messages = catalog.messages(locale: locale, acceptLanguage: acceptLanguage)
        let entry = try await oneTimeCodes.codeEntry(
            code, email: email, screen: .passwordReset, requester: requester, messages: messages)
        if let email, !email.isEmpty {
            let address = User.normalize(email: email)
            for userID in try await codes.holders(address: address, purpose: .addressRestore, at: time.now())
            where try await oneTimeCodes.matchCode(
                entry, userID: userID, address: address, purpose: .addressRestore, spend: false)
            {
                return
            }
        }
        _ = try await oneTimeCodes.redeemCode(entry, email: email, purpose: .passwordReset, messages: messages, spend: false)
    }

    /// A request for a code (reset or verification): its checked flow context and the address of its form,
    /// counted against the code-request limits.
    func codeRequest(_ request: FlowRequest, at call: FormEndpoint) async throws -> (FlowContext, String) {
        let context = try await steps.context(of: request, issuesTokens: false)
        let values = try catalog.validate(
            form: context.form, in: context.flow, values: request.fields, messages: catalog.messages(for: request))
        guard let raw = steps.value(for: "email", form: context.form, in: values) else {
            throw CaptureError.invalidArgument(
                "form", "'\(context.form)' has no email address field\(servedElsewhere(request, not: call))")
        }
        let email = User.normalize(email: raw)
        try await throttle.admitCodeRequest(email: email, address: request.remoteAddress, now: time.now())
        return (context, email)
    }

    /// Where the form a caller sent to the wrong call goes (JanrainForm: a Janrain flow's `resetPasswordForm` asks for
    /// the address, `/oauth/forgot_password_native`), for the refusal to say.
    func servedElsewhere(_ request: FlowRequest, not called: FormEndpoint) -> String {
        guard let flow = request.flow.flatMap(catalog.flow(named:)), let form = request.form,
            let meaning = catalog.meaning(ofForm: form, in: flow), meaning.endpoint != called
        else { return "" }
        return " (flow '\(flow.name)' sends it to \(meaning.endpoint.path))"
    }
}
