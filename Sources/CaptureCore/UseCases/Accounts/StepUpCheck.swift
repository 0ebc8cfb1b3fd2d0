/// The step-up rule applied to a sensitive change (`StepUpRule`), with the current password checked as a sign-in.
public struct StepUpCheck: Sendable {
    let throttle: SignInThrottle
    let hasher: any PasswordHasher
    let decoyHash: String
    let secondFactors: any SecondFactorRepository
    let time: any TimeSource
    let settings: ServiceSettings
    let catalog: FlowCatalog
    let secondFactor: SecondFactorCheck
    let audit: AuditTrail
}

extension StepUpCheck {
    /// Lets `change` go ahead for the session behind `token` when `StepUpRule` allows it, else the documented refusal
    /// (`recentSignInRequired`, audited as `step_up.refused`). A password sent is always checked, like a sign-in
    /// (throttled, a wrong one a 390 on its field), even where the session alone would do. `factorInRequest`: the
    /// change spends a code of the second factor itself (turning the app off), so the rule asks for no other.
    func requireStepUp(
        _ change: SensitiveChange, of user: User, token: TokenRecord, password: CurrentPassword?, messages: Messages,
        factorInRequest: Bool = false
    ) async throws {
        let hasFactor = factorInRequest ? false : try await secondFactors.find(userID: user.id) != nil
        let need = settings.stepUpRule.need(
            sessionBegan: SessionStart.of(chainID: token.chainID), at: time.now(), hasPassword: user.passwordHash != nil,
            hasSecondFactor: hasFactor)
        var refused = need == .signIn
        if let password, user.passwordHash != nil {
            try await check(password, of: user, messages: messages) {
                guard case .password(code: true) = need else { return }
                guard let code = password.code else {
                    refused = true
                    return
                }
                // A wrong code leaves the attempt charged: guessing codes runs into the sign-in limits.
                guard try await secondFactor.spendSecondFactor(code, of: user) else { throw CaptureError.invalidSecondFactor }
            }
        } else if case .password = need {
            refused = true
        }
        guard refused else { return }
        await audit.recordSecurityEvent(
            "step_up.refused", target: user.id, outcome: "refused", detail: change.described + ": the sign-in is not recent")
        // Whole minutes, at least one, for the sentence (a window may be a fraction of one).
        let minutes = max(1, Int(settings.recentSignInMinutes.rounded(.up)))
        throw CaptureError.recentSignInRequired(change, minutes: minutes)
    }

    /// `requireStepUp` for a call that is not a form: the proof from its `current_password` and `second_factor_code`.
    func requireStepUp(
        _ change: SensitiveChange, of user: User, token: TokenRecord, proof: StepUpProof, factorInRequest: Bool = false
    ) async throws {
        let password = proof.password.map {
            CurrentPassword(field: "current_password", typed: $0, address: proof.remoteAddress, code: proof.code)
        }
        try await requireStepUp(
            change, of: user, token: token, password: password,
            messages: catalog.messages(locale: proof.locale, acceptLanguage: nil), factorInRequest: factorInRequest)
    }
}

extension StepUpCheck {
    /// Checks `password` against the account's like a sign-in: throttled and charged before bcrypt runs, so a
    /// stolen token is no way around the sign-in limits; a wrong one is a 390 on its field. `also` is what the attempt
    /// needs besides the password (a second factor's code): a failure there leaves the attempt charged, as a wrong
    /// code at sign-in does.
    func check(
        _ password: CurrentPassword, of user: User, messages: Messages, also: () async throws -> Void = {}
    ) async throws {
        let attempt = try await throttle.begin(email: user.email, deviceHash: nil, address: password.address, now: time.now())
        guard await hasher.verify(password.typed, hash: user.passwordHash ?? decoyHash) else {
            throw CaptureError.invalidFormFields([password.field: [messages.text("field.currentPassword.wrong")]])
        }
        try await also()
        try await throttle.succeeded(attempt, now: time.now())
    }
}

/// A current password typed to confirm a change of the signed-in account: the field it came in (where a wrong
/// one is reported), what was typed, the network address it came from (for the sign-in throttle), and the second
/// factor's code sent with it (`second_factor_code`, which a step-up asks for where a second factor is on).
struct CurrentPassword: Sendable {
    var field: String
    var typed: String
    var address: String?
    var code: String? = nil
}
