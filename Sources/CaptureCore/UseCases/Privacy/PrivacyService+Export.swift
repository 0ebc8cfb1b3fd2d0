import CaptureJSON
import Foundation

extension PrivacyService {
    /// `/account/export`: the signed-in person's data (`AccountExport`), audited as `account.export`.
    public func exportAccount(accessToken: String?) async throws -> AccountExport {
        let (found, token) = try await accessTokens.authenticate(accessToken: accessToken)
        let user = try await dataRequested(by: found)
        let export = try await accountExport(of: user, currentChain: token.chainID)
        await audit.recordSecurityEvent("account.export", target: user.id, detail: "downloaded")
        return export
    }

    /// The same document mailed to the account's providerLinks.address (the request needs the access token; the mail goes only to
    /// the address the account has), audited as `account.export`.
    public func mailAccountExport(accessToken: String?, locale: String?) async throws {
        let (found, token) = try await accessTokens.authenticate(accessToken: accessToken)
        let user = try await dataRequested(by: found)
        let export = try await accountExport(of: user, currentChain: token.chainID)
        let document = String(decoding: try AdminViews.document(export).encoded(), as: UTF8.self)
        try await oneTimeCodes.sendNotice(
            .accountData, to: user.email, user: user, locale: locale,
            values: ["name": user.displayName ?? user.email, "data": document])
        await audit.recordSecurityEvent("account.export", target: user.id, detail: "mailed")
    }

    /// The person's own request for their data, kept as Janrain's `accountDataRequestTime` when the schema has it
    /// (an operator's export on their behalf is audited instead).
    private func dataRequested(by user: User) async throws -> User {
        let stamped = RequestTimes.stamped(user, RequestTimes.data, time.now(), schema: catalog.schema)
        if stamped.profile != user.profile { try await users.update(stamped) }
        return stamped
    }

    /// `AccountExport` of `user`; `currentChain` marks nothing in it but keeps the sessions in the list's order.
    public func accountExport(of user: User, currentChain: String? = nil) async throws -> AccountExport {
        let sessions = try await sessionListings(of: user.id, current: currentChain ?? "")
        var entries = try await audit.auditLog(AuditFilter(target: user.id, page: Page(limit: Page.maxLimit)))
        if user.email != user.id {
            entries += try await audit.auditLog(AuditFilter(target: user.email, page: Page(limit: Page.maxLimit)))
        }
        return AccountExport(
            exportedAt: time.now(), record: try await profile.record(of: user),
            linkedAccounts: try await providerLinks.linkedAccounts(of: user).map(LinkedAccountView.init),
            secondFactor: try await secondFactors.find(userID: user.id) != nil,
            sessions: sessions.map(AccountExport.Session.init),
            audit: entries.sorted { $0.at > $1.at }.map(AuditEntryView.init))
    }
}
