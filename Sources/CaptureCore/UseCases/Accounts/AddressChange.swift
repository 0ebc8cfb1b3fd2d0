import Foundation

/// A record's address moving: the new one proved, the old one told and given a way back.
public struct AddressChange: Sendable {
    let users: any UserRepository
    let tokens: any TokenRepository
    let codes: any CodeRepository
    let catalog: FlowCatalog
    let settings: ServiceSettings
    let time: any TimeSource
    let metrics: CaptureMetrics
    let clientAccess: ClientAccess
    let oneTimeCodes: OneTimeCodes
    let audit: AuditTrail
}

extension AddressChange {
    /// After an address change (`save`): the new address is unproven (a code goes to it), every other session ends
    /// (the current one stays), outstanding codes no longer match (they are bound to the old address), and the old
    /// address is told, with an audit row. The notice carries a restore code that undoes the change for
    /// `addressRestoreHours`, unless an earlier change's is still live: the first address of a series of changes is
    /// the one a restore returns to, and nothing a later holder does takes that way back from it.
    func addressChanged(
        from previous: User, to user: User, token: TokenRecord, flow: FlowDefinition?, locale: String?
    )
        async throws
    {
        let now = time.now()
        metrics.revoked(try await tokens.revokeAll(userID: user.id, exceptChain: token.chainID, at: now), .addressChange)
        let client = try await clientAccess.client(id: token.clientID)
        let values = ["name": user.displayName ?? previous.email, "email": user.email, "previous": previous.email]
        var wayBackSent = false
        if let flow = flow ?? catalog.pageFlows.first {
            let context = FlowContext(client: client, flow: flow, form: "", responseType: .token)
            try await oneTimeCodes.sendCode(.emailVerification, to: user.email, user: user, context: context, locale: locale)
            let restoreOpen = try await codes.use(userID: user.id, purpose: .addressRestore) { newest in
                (nil, newest?.isLive(at: now) == true)
            }
            if !restoreOpen {
                try await oneTimeCodes.sendCode(
                    .emailChanged, purpose: .addressRestore, lifetime: settings.addressRestoreHours * 3600,
                    screen: "resetPassword", to: previous.email, user: user, context: context, locale: locale,
                    values: values)
                wayBackSent = true
            }
        }
        if !wayBackSent {
            try await oneTimeCodes.sendNotice(.emailChanged, to: previous.email, user: user, locale: locale, values: values)
        }
        await audit.recordSecurityEvent(
            "user.email_change", target: user.id, detail: "from \(previous.email) to \(user.email); other sessions ended")
    }

    /// The restore code of an address change, typed on the reset screen its link opens: when an account left
    /// `email` with a live restore code and `typed` is it, that account is returned with `email` as its address,
    /// proven (the caller stores it with the new password, ends every session and removes provider links not vouched
    /// for that address). Nil when no account left `email` with a live restore code: the ordinary reset applies.
    /// `entry` was charged already (`codeEntry`); a wrong typed one counts on the restore code as on any code.
    func restoreAddress(_ entry: CodeGuessing.Entry, email: String?) async throws -> User? {
        guard let email, !email.isEmpty else { return nil }
        let address = User.normalize(email: email)
        let now = time.now()
        for userID in try await codes.holders(address: address, purpose: .addressRestore, at: now) {
            guard var user = try await users.find(id: userID), !user.isDisabled, user.email != address else {
                continue
            }
            // A right code onto an address another account took meanwhile is recognised but not spent.
            let heldElsewhere = try await users.find(email: address).map { $0.id != userID } ?? false
            guard
                try await oneTimeCodes.matchCode(
                    entry, userID: userID, address: address, purpose: .addressRestore, spend: !heldElsewhere)
            else { continue }
            if heldElsewhere {
                await audit.recordSecurityEvent(
                    "user.email_restore", target: userID, outcome: "refused",
                    detail: "\(address) is now another account's address")
                throw CaptureError.notPermitted(
                    "\(address) now belongs to another account, so it cannot be restored here: contact support")
            }
            await audit.recordSecurityEvent(
                "user.email_restore", target: userID,
                detail: "from \(user.email) back to \(address) with the old address's code; every session revoked")
            user.email = address
            user.emailVerifiedAt = now
            return user
        }
        return nil
    }
}
