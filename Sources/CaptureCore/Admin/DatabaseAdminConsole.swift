/// The operator's verbs on the database, as `actor`: every change is written to the audit log with its outcome.
public struct DatabaseAdminConsole: AdminConsole {
    public let features: CaptureFeatures
    public let actor: AuditActor

    public init(features: CaptureFeatures, actor: AuditActor) {
        self.features = features
        self.actor = actor
    }

    public func tokens(_ query: TokenQuery) async throws -> AdminList<TokenView> {
        let (kind, state) = try query.checked()
        let records = try await features.admin.listTokens(
            user: query.user, client: query.client, kind: kind, state: state, page: query.page)
        var emails: [String: String?] = [:]
        var items: [TokenView] = []
        for record in records {
            if emails[record.userID] == nil {
                emails[record.userID] = .some(try await features.store.users.find(id: record.userID)?.email)
            }
            items.append(TokenView(record, email: emails[record.userID] ?? nil, now: features.time.now()))
        }
        return AdminList(items: items, nextOffset: query.page.next(after: records.count))
    }

    public func token(_ reference: String) async throws -> TokenView {
        let record = try await features.admin.findToken(reference)
        let email = try await features.store.users.find(id: record.userID)?.email
        return TokenView(record, email: email, now: features.time.now())
    }

    public func revokeToken(_ reference: String) async throws -> RevocationView {
        let count = try await features.audit.audited("token.revoke", target: reference, by: actor, detail: { "revoked \($0)" }) {
            try await features.admin.revokeToken(reference)
        }
        return RevocationView(revoked: count)
    }

    public func revokeTokens(ofUser reference: String) async throws -> RevocationView {
        let count = try await features.audit.audited("user.sign_out", target: reference, by: actor, detail: { "revoked \($0)" }) {
            try await features.admin.revokeTokens(ofUser: reference)
        }
        return RevocationView(revoked: count)
    }

    public func revokeTokens(ofClient id: String) async throws -> RevocationView {
        let count = try await features.audit.audited("client.revoke_tokens", target: id, by: actor, detail: { "revoked \($0)" }) {
            try await features.admin.revokeTokens(ofClient: id)
        }
        return RevocationView(revoked: count)
    }

    public func introspect(_ token: String) async throws -> IntrospectionView {
        guard let introspection = try await features.tokens.introspect(token: token) else { return .inactive }
        return IntrospectionView(introspection)
    }

    public func purgeExpiredTokens() async throws -> PurgeView {
        let count = try await features.audit.audited("token.purge_expired", target: "tokens", by: actor, detail: { "purged \($0)" }) {
            try await features.housekeeping.purgeExpiredTokens()
        }
        return PurgeView(purged: count)
    }

    public func users(_ query: UserQuery) async throws -> AdminList<UserView> {
        let users = try await features.admin.listUsers(search: query.search, page: query.page)
        return AdminList(items: users.map { UserView($0) }, nextOffset: query.page.next(after: users.count))
    }

    public func user(_ reference: String) async throws -> UserView {
        let user = try await features.admin.findUser(reference)
        return UserView(user, linked: try await features.providerLinks.linkedAccounts(of: user))
    }

    public func setDisabled(_ reference: String, _ disabled: Bool) async throws -> UserView {
        let user = try await features.audit.audited(disabled ? "user.disable" : "user.enable", target: reference, by: actor) {
            try await features.admin.setDisabled(reference, disabled: disabled)
        }
        return UserView(user)
    }

    public func deleteUser(_ reference: String) async throws -> DeletedUserView {
        // Audited under the pseudonym the erasure leaves in the log, never the reference (often the address).
        let user: User
        do {
            user = try await features.admin.deleteUser(reference)
        } catch {
            let refusal = CaptureError(error)
            try? await features.audit.record(
                "user.delete", target: reference, by: actor, outcome: refusal.error, detail: refusal.errorDescription)
            throw error
        }
        try await features.audit.record(
            "user.delete", target: features.admin.removal.pseudonym(of: user), by: actor, outcome: AuditEntry.success, detail: nil)
        return DeletedUserView(deleted: user.id, email: user.email)
    }

    public func deactivateUser(_ reference: String) async throws -> UserView {
        UserView(
            try await features.audit.audited("user.deactivate", target: reference, by: actor) {
                try await features.admin.deactivateUser(reference)
            })
    }

    public func reactivateUser(_ reference: String) async throws -> UserView {
        UserView(
            try await features.audit.audited("user.reactivate", target: reference, by: actor) {
                try await features.admin.reactivateUser(reference)
            })
    }

    public func exportUser(_ reference: String) async throws -> AccountExport {
        try await features.audit.audited("user.export", target: reference, by: actor) {
            try await features.privacy.accountExport(of: try await features.admin.findUser(reference))
        }
    }

    public func resetFactors(_ reference: String) async throws -> FactorsResetView {
        let (user, passkeys, secondFactor) = try await features.audit.audited(
            "user.reset_factors", target: reference, by: actor,
            detail: { "\($0.1) passkeys, second factor \($0.2 ? "removed" : "none")" }
        ) {
            try await features.admin.resetFactors(reference)
        }
        return FactorsResetView(user: user.id, passkeysRemoved: passkeys, secondFactorRemoved: secondFactor)
    }

    public func clients() async throws -> AdminList<ClientView> {
        AdminList(items: try await features.clientAdmin.listClients().map { ClientView($0) }, nextOffset: nil)
    }

    public func client(_ id: String) async throws -> ClientView {
        ClientView(try await features.clientAdmin.findClient(id))
    }

    public func addClient(_ draft: ClientDraft) async throws -> ClientView {
        let (client, secret) = try await features.audit.audited("client.add", target: draft.id, by: actor) {
            try await features.clientAdmin.addClient(draft)
        }
        return ClientView(client, secret: secret)
    }

    public func updateClient(_ id: String, _ change: ClientChange) async throws -> ClientView {
        let client = try await features.audit.audited("client.update", target: id, by: actor) {
            try await features.clientAdmin.updateClient(id, change)
        }
        return ClientView(client)
    }

    public func removeClient(_ id: String) async throws -> RemovedClientView {
        let (client, revoked) = try await features.audit.audited(
            "client.remove", target: id, by: actor, detail: { "revoked \($0.revoked)" }
        ) {
            try await features.clientAdmin.removeClient(id)
        }
        return RemovedClientView(removed: client.clientID, revoked: revoked)
    }

    public func rotateClientSecret(_ id: String) async throws -> ClientSecretView {
        let (client, secret) = try await features.audit.audited("client.rotate_secret", target: id, by: actor) {
            try await features.clientAdmin.rotateClientSecret(id)
        }
        return ClientSecretView(clientID: client.clientID, clientSecret: secret)
    }

    public func audit(_ filter: AuditFilter) async throws -> AdminList<AuditEntryView> {
        let entries = try await features.audit.auditLog(filter)
        return AdminList(items: entries.map(AuditEntryView.init), nextOffset: filter.page.next(after: entries.count))
    }
}
