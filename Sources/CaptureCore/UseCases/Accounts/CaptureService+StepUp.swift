extension CaptureService {
    /// The step-up rule with this service's `recentSignInMinutes`.
    public var stepUp: StepUpRule { StepUpRule(window: settings.recentSignInMinutes * 60) }

    /// Lets `change` go ahead for the session behind `token` when `StepUpRule` allows it, else the documented refusal
    /// (`recentSignInRequired`, audited as `step_up.refused`). A password sent is always checked, like a sign-in
    /// (throttled, a wrong one a 390 on its field), even where the session alone would do. `factorInRequest`: the
    /// change spends a code of the second factor itself (turning the app off), so the rule asks for no other.
    func requireStepUp(
        _ change: SensitiveChange, of user: User, token: TokenRecord, password: CurrentPassword?, messages: Messages,
        factorInRequest: Bool = false
    ) async throws {
        let hasFactor = factorInRequest ? false : try await store.secondFactors.find(userID: user.id) != nil
        let need = stepUp.need(
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
                guard try await spendSecondFactor(code, of: user) else { throw CaptureError.invalidSecondFactor }
            }
        } else if case .password = need {
            refused = true
        }
        guard refused else { return }
        await recordSecurityEvent(
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
            messages: messages(locale: proof.locale, acceptLanguage: nil), factorInRequest: factorInRequest)
    }
}
