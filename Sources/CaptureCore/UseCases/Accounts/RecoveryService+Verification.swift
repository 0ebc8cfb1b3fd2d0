extension RecoveryService {
    /// `/oauth/verify_email_native`: sends a verification code to the address of `resendVerificationForm` when it
    /// belongs to an account that is not verified yet; the same reply and time otherwise.
    public func requestVerification(_ request: FlowRequest) async throws {
        let (context, email) = try await codeRequest(request, at: .requestVerification)
        let user = try await users.find(email: email).flatMap { $0.emailVerifiedAt == nil ? $0 : nil }
        try await oneTimeCodes.sendCode(.emailVerification, to: email, user: user, context: context, locale: request.locale)
    }

    /// `/access/useVerificationCode`: the code from a verification message marks the address verified (a first proof
    /// ends provider links nobody vouched for). A typed code is charged to `requester` (`CodeGuessing`). A refusal
    /// speaks `locale` (else `acceptLanguage`).
    public func verifyEmail(
        code: String?, email: String?, locale: String? = nil, acceptLanguage: String? = nil, requester: String? = nil
    ) async throws -> User {
        let messages = catalog.messages(locale: locale, acceptLanguage: acceptLanguage)
        let entry = try await oneTimeCodes.codeEntry(
            code, email: email, screen: .emailVerification, requester: requester, messages: messages)
        var user = try await oneTimeCodes.redeemCode(entry, email: email, purpose: .emailVerification, messages: messages)
        try await mailboxProof.endUnprovenLinks(of: user, wasProven: user.emailVerifiedAt != nil, locale: locale)
        let now = time.now()
        user.emailVerifiedAt = user.emailVerifiedAt ?? now
        user.updatedAt = now
        try await users.update(user)
        return user
    }
}
