import Foundation

/// Deactivation as a deletion, and erasure once the grace period is over.
public struct AccountRemoval: Sendable {
    let users: any UserRepository
    let tokens: any TokenRepository
    let codeKey: CodeKey
    let catalog: FlowCatalog
    let time: any TimeSource
    let metrics: CaptureMetrics
    let settings: ServiceSettings
    let oneTimeCodes: OneTimeCodes
    let revocations: ProviderRevocations
    let audit: AuditTrail
}

extension AccountRemoval {
    /// How many due accounts one purge pass erases; the rest wait for the next pass.
    static let erasuresPerPass = 500

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
        try await users.update(user)
        metrics.revoked(try await tokens.revokeAll(userID: user.id, at: now), .accountDisabled)
        try await revocations.revokeProviderTokens(of: user)
        let erasure = settings.accountDeletion.erasure(of: user) ?? now
        try await oneTimeCodes.sendNotice(
            .accountDeleted, to: user.email, user: user, locale: locale,
            values: ["erase": CaptureDate.day(erasure)], linked: false)
        await audit.recordSecurityEvent(
            "account.deleted", target: user.id, detail: "by \(whom); erased on \(CaptureDate.format(erasure))")
        if settings.accountDeletion.grace <= 0 { try await erase(user) }
        return user
    }

    /// Erases the account: the record and everything that names it (tokens, codes, linked sign-ins, passkeys,
    /// second factor, ceremonies, messages); its audit rows keep a pseudonym in place of its id and address. The
    /// providers' refresh tokens kept with its linked sign-ins are revoked first. Unless the caller erases a batch
    /// (and scrubs once after it), the storage's files are scrubbed of it at once (`scrubErased`).
    @discardableResult func erase(_ user: User, scrubbing: Bool = true) async throws -> Bool {
        try await revocations.revokeProviderTokens(of: user)
        let pseudonym = self.pseudonym(of: user)
        let erased = try await users.erase(user, pseudonym: pseudonym)
        if erased { await audit.recordSecurityEvent("account.erased", target: pseudonym) }
        if erased && scrubbing { try await users.scrubErased() }
        return erased
    }

    /// What the audit log calls an erased account: keyed by the code key, so the rows of one account stay together
    /// and nobody without the key can tell whose they were.
    func pseudonym(of user: User) -> String {
        "erased:" + codeKey.mac("account:" + user.id).prefix(20)
    }

    /// The purge pass's share: accounts whose grace period has passed. Returns how many were erased.
    func eraseDueAccounts() async throws -> Int {
        let due = try await users.deletionsRequested(
            before: settings.accountDeletion.dueBefore(time.now()), limit: Self.erasuresPerPass)
        var erased = 0
        for user in due {
            if try await erase(user, scrubbing: false) { erased += 1 }
        }
        if erased > 0 { try await users.scrubErased() }
        return erased
    }
}
