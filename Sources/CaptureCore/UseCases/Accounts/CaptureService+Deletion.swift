import Foundation

extension CaptureService {
    /// The grace period between a person's deletion of their account and its erasure (`erasureGraceDays`).
    public var accountDeletion: AccountDeletion { AccountDeletion(graceDays: settings.erasureGraceDays) }

    /// How many due accounts one purge pass erases; the rest wait for the next pass.
    static let erasuresPerPass = 500

    /// `/oauth/deactivate_account` (`deactivateAccountForm`): the signed-in person deletes their account, proving it
    /// with the password (checked and throttled as a sign-in; from a session whose sign-in is not recent, with a
    /// second factor's code too where one is on), or without one with a recent sign-in (`requireStepUp`).
    /// Returns when the account will be erased.
    public func deactivateAccount(_ request: FlowRequest) async throws -> Date {
        let (user, token) = try await authenticate(accessToken: request.accessToken)
        let context = try await context(of: request, issuesTokens: false)
        guard token.clientID == context.client.clientID else {
            throw CaptureError.notPermitted("this access_token was issued to another client")
        }
        if user.passwordHash != nil {
            let messages = messages(for: request)
            let values = try catalog.validate(form: context.form, in: context.flow, values: request.fields, messages: messages)
            guard let field = fieldName(for: "currentPassword", form: context.form), let typed = values[field] else {
                throw CaptureError.invalidArgument("form", "'\(context.form)' has no current password field")
            }
            let password = CurrentPassword(
                field: field, typed: typed, address: request.remoteAddress, code: request.stepUp.code)
            try await requireStepUp(.deleteAccount, of: user, token: token, password: password, messages: messages)
        } else {
            try await requireStepUp(.deleteAccount, of: user, token: token, password: nil, messages: messages(for: request))
        }
        let deleted = try await deactivate(user, locale: request.locale, by: "its owner")
        return accountDeletion.erasure(of: deleted) ?? time.now()
    }

    /// Deactivates the account as its owner's deletion: every session ends, sign-in is refused until the owner
    /// reactivates it, a notice goes to the address, and it is erased after the grace period (at once when it is
    /// 0). The notice outlives an erasure until it is delivered, so it carries nothing of the profile (no name).
    /// Returns the account as deleted.
    func deactivate(_ user: User, locale: String?, by whom: String) async throws -> User {
        var user = user
        let now = time.now()
        user.disabledAt = user.disabledAt ?? now
        user.deleteRequestedAt = now
        user.updatedAt = now
        user = RequestTimes.stamped(user, RequestTimes.deletion, now, schema: catalog.schema)
        try await store.users.update(user)
        metrics.revoked(try await store.tokens.revokeAll(userID: user.id, at: now), .accountDisabled)
        try await revokeProviderTokens(of: user)
        let erasure = accountDeletion.erasure(of: user) ?? now
        try await sendNotice(
            .accountDeleted, to: user.email, user: user, locale: locale,
            values: ["erase": CaptureDate.day(erasure)], linked: false)
        await recordSecurityEvent(
            "account.deleted", target: user.id, detail: "by \(whom); erased on \(CaptureDate.format(erasure))")
        if accountDeletion.grace <= 0 { try await erase(user) }
        return user
    }

    /// A proven sign-in's standing: an active account goes on; one its owner deleted goes on only when the caller
    /// asks to reactivate it within the grace period; any other deactivated account is refused.
    func admit(_ user: User, reactivating: Bool) throws {
        guard user.isDisabled else { return }
        if accountDeletion.isReactivable(user, at: time.now()), let until = accountDeletion.erasure(of: user) {
            if reactivating { return }
            throw CaptureError.accountDeleted(reactivateUntil: until)
        }
        throw CaptureError.accountDeactivated
    }

    /// `admit`, then brings back an account its owner deleted: the sign-in completing now is the owner's proof.
    func admitted(_ user: User, reactivating: Bool) async throws -> User {
        try admit(user, reactivating: reactivating)
        guard user.deleteRequestedAt != nil else { return user }
        var user = RequestTimes.stamped(user, RequestTimes.deletion, nil, schema: catalog.schema)
        user.deleteRequestedAt = nil
        user.disabledAt = nil
        user.updatedAt = time.now()
        try await store.users.update(user)
        await recordSecurityEvent("account.reactivated", target: user.id, detail: "by its owner's sign-in")
        return user
    }

    /// Erases the account: the record and everything that names it (tokens, codes, linked sign-ins, passkeys,
    /// second factor, ceremonies, messages); its audit rows keep a pseudonym in place of its id and address. The
    /// providers' refresh tokens kept with its linked sign-ins are revoked first. Unless the caller erases a batch
    /// (and scrubs once after it), the storage's files are scrubbed of it at once (`scrubErased`).
    @discardableResult func erase(_ user: User, scrubbing: Bool = true) async throws -> Bool {
        try await revokeProviderTokens(of: user)
        let pseudonym = self.pseudonym(of: user)
        let erased = try await store.users.erase(user, pseudonym: pseudonym)
        if erased { await recordSecurityEvent("account.erased", target: pseudonym) }
        if erased && scrubbing { try await store.users.scrubErased() }
        return erased
    }

    /// What the audit log calls an erased account: keyed by the code key, so the rows of one account stay together
    /// and nobody without the key can tell whose they were.
    func pseudonym(of user: User) -> String {
        "erased:" + codeKey.mac("account:" + user.id).prefix(20)
    }

    /// The purge pass's share: accounts whose grace period has passed. Returns how many were erased.
    func eraseDueAccounts() async throws -> Int {
        let due = try await store.users.deletionsRequested(
            before: accountDeletion.dueBefore(time.now()), limit: Self.erasuresPerPass)
        var erased = 0
        for user in due {
            if try await erase(user, scrubbing: false) { erased += 1 }
        }
        if erased > 0 { try await store.users.scrubErased() }
        return erased
    }
}
