import Foundation

/// What the first proof of a mailbox ends: links to providers that did not vouch for it.
public struct MailboxProof: Sendable {
    let identities: any IdentityRepository
    let tokens: any TokenRepository
    let social: SocialProviders
    let time: any TimeSource
    let metrics: CaptureMetrics
    let oneTimeCodes: OneTimeCodes
    let audit: AuditTrail
}

extension MailboxProof {
    /// What the first proof of a mailbox (a reset or verification code) for an address not proven before ends: a
    /// pre-hijack. Someone who made the account through a provider that did not vouch for the address (or linked one
    /// before it was proven) loses that link: each link not vouched for this address goes, with an audit row; every
    /// session of the account ends (the intruder's too); the mailbox is told which sign-ins went. Returns whether
    /// anything was removed. A link vouched for the address stays: that provider proved the same mailbox.
    @discardableResult
    func endUnprovenLinks(of user: User, wasProven: Bool, locale: String?) async throws -> Bool {
        guard !wasProven else { return false }
        let doubtful = try await identities.list(userID: user.id).filter {
            !($0.vouched && $0.email.map(User.normalize(email:)) == user.email)
        }
        guard !doubtful.isEmpty else { return false }
        for link in doubtful {
            try await identities.unlink(provider: link.provider, subject: link.subject, userID: user.id)
            await audit.recordSecurityEvent(
                "identity.unlink", target: user.id,
                detail: "\(link.identifier): its provider did not vouch for the address the owner just proved")
        }
        let now = time.now()
        metrics.revoked(try await tokens.revokeAll(userID: user.id, at: now), .unprovenLinkRemoved)
        let names = doubtful.map { social.provider(named: $0.provider)?.settings.displayName ?? $0.provider }
        try await oneTimeCodes.sendNotice(
            .providerLinksRemoved, to: user.email, user: user, locale: locale,
            values: ["name": user.displayName ?? user.email, "providers": Array(Set(names)).sorted().joined(separator: ", ")])
        return true
    }
}
