import Foundation

/// Mailed codes and notices: minting, the outbox, and checking a code typed or followed from a link.
public struct OneTimeCodes: Sendable {
    let users: any UserRepository
    let throttleStore: any ThrottleRepository
    let codes: any CodeRepository
    let outbox: any OutboxRepository
    let templates: MailTemplates
    let mailSignal: MailSignal
    let codeKey: CodeKey
    let minter: TokenMinter
    let time: any TimeSource
    let settings: ServiceSettings
    let catalog: FlowCatalog
    let clientSettings: ClientSettingsAccess
}

extension OneTimeCodes {
    /// Records a message of `kind` for `email` with a fresh one-time code when the address belongs to a live account,
    /// and a body-less `suppressed` entry otherwise. Both paths do the same work (a code is minted and hashed, a
    /// message rendered, one write), so neither the reply nor its timing tells whether the account exists.
    func sendCode(
        _ kind: OutboxEntry.Kind, to email: String, user: User?, context: FlowContext, locale: String?
    ) async throws {
        let reset = kind == .passwordReset
        try await sendCode(
            kind, purpose: reset ? .passwordReset : .emailVerification,
            lifetime: reset ? settings.resetCodeMinutes * 60 : settings.verificationCodeHours * 3600,
            screen: reset ? "resetPassword" : "verifyEmail", to: email, user: user, context: context, locale: locale)
    }

    /// `sendCode` for a code of `purpose` that lives `lifetime` seconds and whose link opens `screen`; `values` fill
    /// the template besides the code's own (`code`, `link`, `expires`, `name`, `origin`).
    func sendCode(
        _ kind: OutboxEntry.Kind, purpose: CodePurpose, lifetime: TimeInterval, screen: String, to email: String,
        user: User?, context: FlowContext, locale: String?, values: [String: String] = [:]
    ) async throws {
        let now = time.now()
        let code = CodeFormat.mint(minter.random)
        let live = user.flatMap { $0.isDisabled ? nil : $0 }
        // Tagged for an address without a live account too ("" is nobody's id): both paths do the same work.
        let linkCode = codeGuessing.linkCode(code, userID: live?.id ?? "", address: email, purpose: purpose)
        let pages = try await clientSettings.pages(of: context.client)
        let rendered = templates.render(
            kind, locale: locale,
            values: values.merging([
                "code": code, "name": user?.displayName ?? email, "origin": settings.resolvedPublicOrigin,
                "site": pages.siteName ?? settings.resolvedPublicOrigin,
                "expires": Self.describe(lifetime, in: catalog.localization.messages(for: locale)),
                "link": codeLink(
                    screen: screen, code: linkCode, email: email, pages: pages, context: context, locale: locale),
            ]) { given, _ in given })
        let entry = OutboxEntry(
            messageID: "\(minter.identifier())@\(URLOrigin(settings.resolvedPublicOrigin)?.host ?? settings.host)",
            kind: kind, recipient: email, userID: live?.id,
            subject: rendered.subject, text: live == nil ? nil : rendered.text, html: live == nil ? nil : rendered.html,
            status: live == nil ? .suppressed : .pending, createdAt: now, bodyExpiresAt: now + lifetime)
        let stored = live.map {
            OneTimeCode(
                purpose: purpose, userID: $0.id,
                hash: CodeFormat.hash(code, userID: $0.id, address: email, purpose: purpose, key: codeKey),
                address: User.normalize(email: email), createdAt: now, expiresAt: now + lifetime)
        }
        try await outbox.record(entry, issuing: stored)
        mailSignal.wake()
    }

    /// Records a notice of `kind` for `recipient` (no code: what happened to the account, and what to do), delivered
    /// like every message; `values` fill its template besides `origin`.
    /// A notice without a code to `recipient`; `linked: false` leaves it out of the account's messages (the
    /// account's erasure does not take it).
    func sendNotice(
        _ kind: OutboxEntry.Kind, to recipient: String, user: User, locale: String?, values: [String: String],
        linked: Bool = true
    ) async throws {
        let now = time.now()
        let origin = settings.resolvedPublicOrigin
        let rendered = templates.render(
            kind, locale: locale, values: values.merging(["origin": origin, "site": origin]) { given, _ in given })
        let entry = OutboxEntry(
            messageID: "\(minter.identifier())@\(URLOrigin(settings.resolvedPublicOrigin)?.host ?? settings.host)",
            kind: kind, recipient: recipient, userID: linked ? user.id : nil, subject: rendered.subject, text: rendered.text,
            html: rendered.html, status: .pending, createdAt: now, bodyExpiresAt: now + settings.verificationCodeHours * 3600)
        try await outbox.record(entry, issuing: nil)
        mailSignal.wake()
    }

    /// The rule for presented codes: link tags under the code key, typed entries charged to their requester.
    var codeGuessing: CodeGuessing { CodeGuessing(store: throttleStore, key: codeKey) }

    /// `presented` read once per request at `screen` (the purpose whose screen it is: the reset screen also takes
    /// restore codes): a typed code is charged to `requester` before anything is looked up (`CodeGuessing`), a
    /// link's is not. A missing code is 390 `code.missing`.
    func codeEntry(
        _ presented: String?, email: String?, screen: CodePurpose, requester: String?, messages: Messages
    ) async throws -> CodeGuessing.Entry {
        guard let presented, !presented.isEmpty else {
            throw CaptureError.invalidFormFields(["verification_code": [messages.text("code.missing")]])
        }
        let entry = CodeGuessing.entry(presented)
        if case .typed = entry {
            try await codeGuessing.admitTyped(screen: screen, address: email ?? "", requester: requester, now: time.now())
        }
        return entry
    }

    /// The live account of `email` when `entry` is its live code for `purpose`, spent unless `spend` is false. Every
    /// failure is the same 390 on `verification_code`.
    func redeemCode(
        _ entry: CodeGuessing.Entry, email: String?, purpose: CodePurpose, messages: Messages, spend: Bool = true
    ) async throws -> User {
        let wrong = CaptureError.invalidFormFields(["verification_code": [messages.text("code.wrong")]])
        guard let email, !email.isEmpty, let user = try await users.find(email: User.normalize(email: email)),
            !user.isDisabled
        else { throw wrong }
        // Against the address the account has now: a code sent to the one it had before proves nothing about this one.
        guard try await matchCode(entry, userID: user.id, address: user.email, purpose: purpose, spend: spend) else {
            throw wrong
        }
        return user
    }

    /// Whether `entry` is `userID`'s live code for `purpose` sent to `address` (the hash and a link's tag bind all
    /// three); a right one is spent unless `spend` is false. A link's tag is checked first, and a wrong one never
    /// reaches the stored code; a wrong typed entry is counted on the code, whose typed form ends at
    /// `CodeGuessing.typedCeiling` (its link still works); a right tag on a code replaced since counts nothing.
    func matchCode(
        _ entry: CodeGuessing.Entry, userID: String, address: String, purpose: CodePurpose, spend: Bool = true
    )
        async throws -> Bool
    {
        let short: String
        let typed: Bool
        switch entry {
        case .typed(let code): (short, typed) = (code, true)
        case .link(let code, let tag):
            guard codeGuessing.proves(tag, code: code, userID: userID, address: address, purpose: purpose) else {
                return false
            }
            (short, typed) = (code, false)
        case .malformed: return false
        }
        let now = time.now()
        let hash = CodeFormat.hash(short, userID: userID, address: address, purpose: purpose, key: codeKey)
        return try await codes.use(userID: userID, purpose: purpose) { newest in
            guard var code = newest, code.isLive(at: now) else { return (nil, false) }
            if typed, code.attempts >= CodeGuessing.typedCeiling { return (nil, false) }
            guard ConstantTime.equals(code.hash, hash) else {
                guard typed else { return (nil, false) }
                code.attempts += 1
                return (code, false)
            }
            guard spend else { return (nil, true) }
            code.usedAt = now
            return (code, true)
        }
    }

    /// A link that opens `screen` with the code filled in: on the client's own page when its settings name one
    /// (ClientPages), else on the flow page. Code and address travel in the fragment, which browsers never send to a
    /// server, so they reach no log and no `Referer`.
    func codeLink(
        screen: String, code: String, email: String, pages: ClientPages, context: FlowContext, locale: String?
    ) -> String {
        if let page = pages.link(screen: screen, code: code, email: email) {
            return page
        }
        var query = URLComponents()
        query.queryItems =
            [URLQueryItem(name: "client_id", value: context.client.clientID)]
            + (locale.map { [URLQueryItem(name: "locale", value: $0)] } ?? [])
        let fragment = ClientPages.fragment(screen: screen, code: code, email: email)
        let page = catalog.pageFlow(for: context.flow).name
        return "\(settings.resolvedPublicOrigin)/flows/\(page)?\(query.percentEncodedQuery ?? "")#\(fragment)"
    }

    /// A code's lifetime as the message says it ("30 minutes", "24 Stunden", "ساعتين"): whole hours in hours, else
    /// minutes, from the catalogs' `mail.expires.hours` / `mail.expires.minutes` in the message's language.
    static func describe(_ seconds: TimeInterval, in messages: Messages) -> String {
        if seconds >= 3600, seconds.truncatingRemainder(dividingBy: 3600) == 0 {
            return messages.text("mail.expires.hours", count: Int(seconds / 3600))
        }
        return messages.text("mail.expires.minutes", count: Int((seconds / 60).rounded()))
    }
}
