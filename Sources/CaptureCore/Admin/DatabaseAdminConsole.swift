/// The operator's verbs on the database, as `actor`: every change is written to the audit log with its outcome.
public struct DatabaseAdminConsole: AdminConsole {
    public let service: CaptureService
    public let actor: AuditActor

    public init(service: CaptureService, actor: AuditActor) {
        self.service = service
        self.actor = actor
    }

    public func tokens(_ query: TokenQuery) async throws -> AdminList<TokenView> {
        let (kind, state) = try query.checked()
        let records = try await service.listTokens(
            user: query.user, client: query.client, kind: kind, state: state, page: query.page)
        var emails: [String: String?] = [:]
        var items: [TokenView] = []
        for record in records {
            if emails[record.userID] == nil {
                emails[record.userID] = .some(try await service.store.users.find(id: record.userID)?.email)
            }
            items.append(TokenView(record, email: emails[record.userID] ?? nil, now: service.time.now()))
        }
        return AdminList(items: items, nextOffset: query.page.next(after: records.count))
    }

    public func token(_ reference: String) async throws -> TokenView {
        let record = try await service.findToken(reference)
        let email = try await service.store.users.find(id: record.userID)?.email
        return TokenView(record, email: email, now: service.time.now())
    }

    public func revokeToken(_ reference: String) async throws -> RevocationView {
        let count = try await service.audited("token.revoke", target: reference, by: actor, detail: { "revoked \($0)" }) {
            try await service.revokeToken(reference)
        }
        return RevocationView(revoked: count)
    }

    public func revokeTokens(ofUser reference: String) async throws -> RevocationView {
        let count = try await service.audited("user.sign_out", target: reference, by: actor, detail: { "revoked \($0)" }) {
            try await service.revokeTokens(ofUser: reference)
        }
        return RevocationView(revoked: count)
    }

    public func revokeTokens(ofClient id: String) async throws -> RevocationView {
        let count = try await service.audited("client.revoke_tokens", target: id, by: actor, detail: { "revoked \($0)" }) {
            try await service.revokeTokens(ofClient: id)
        }
        return RevocationView(revoked: count)
    }

    public func introspect(_ token: String) async throws -> IntrospectionView {
        guard let introspection = try await service.introspect(token: token) else { return .inactive }
        return IntrospectionView(introspection)
    }

    public func purgeExpiredTokens() async throws -> PurgeView {
        let count = try await service.audited("token.purge_expired", target: "tokens", by: actor, detail: { "purged \($0)" }) {
            try await service.purgeExpiredTokens()
        }
        return PurgeView(purged: count)
    }

    public func users(_ query: UserQuery) async throws -> AdminList<UserView> {
        let users = try await service.listUsers(search: query.search, page: query.page)
        return AdminList(items: users.map { UserView($0) }, nextOffset: query.page.next(after: users.count))
    }

    public func user(_ reference: String) async throws -> UserView {
        let user = try await service.findUser(reference)
        return UserView(user, linked: try await service.linkedAccounts(of: user))
    }

    public func setDisabled(_ reference: String, _ disabled: Bool) async throws -> UserView {
        let user = try await service.audited(disabled ? "user.disable" : "user.enable", target: reference, by: actor) {
            try await service.setDisabled(reference, disabled: disabled)
        }
        return UserView(user)
    }

    public func deleteUser(_ reference: String) async throws -> DeletedUserView {
        // Audited under the pseudonym the erasure leaves in the log, never the reference (often the address).
        let user: User
        do {
            user = try await service.deleteUser(reference)
        } catch {
            let refusal = CaptureError(error)
            try? await service.record(
                "user.delete", target: reference, by: actor, outcome: refusal.error, detail: refusal.errorDescription)
            throw error
        }
        try await service.record(
            "user.delete", target: service.pseudonym(of: user), by: actor, outcome: AuditEntry.success, detail: nil)
        return DeletedUserView(deleted: user.id, email: user.email)
    }

    public func deactivateUser(_ reference: String) async throws -> UserView {
        UserView(
            try await service.audited("user.deactivate", target: reference, by: actor) {
                try await service.deactivateUser(reference)
            })
    }

    public func reactivateUser(_ reference: String) async throws -> UserView {
        UserView(
            try await service.audited("user.reactivate", target: reference, by: actor) {
                try await service.reactivateUser(reference)
            })
    }

    public func exportUser(_ reference: String) async throws -> AccountExport {
        try await service.audited("user.export", target: reference, by: actor) {
            try await service.accountExport(of: try await service.findUser(reference))
        }
    }

    public func resetFactors(_ reference: String) async throws -> FactorsResetView {
        let (user, passkeys, secondFactor) = try await service.audited(
            "user.reset_factors", target: reference, by: actor,
            detail: { "\($0.1) passkeys, second factor \($0.2 ? "removed" : "none")" }
        ) {
            try await service.resetFactors(reference)
        }
        return FactorsResetView(user: user.id, passkeysRemoved: passkeys, secondFactorRemoved: secondFactor)
    }

    public func clients() async throws -> AdminList<ClientView> {
        AdminList(items: try await service.listClients().map { ClientView($0) }, nextOffset: nil)
    }

    public func client(_ id: String) async throws -> ClientView {
        ClientView(try await service.findClient(id))
    }

    public func addClient(_ draft: ClientDraft) async throws -> ClientView {
        let (client, secret) = try await service.audited("client.add", target: draft.id, by: actor) {
            try await service.addClient(draft)
        }
        return ClientView(client, secret: secret)
    }

    public func updateClient(_ id: String, _ change: ClientChange) async throws -> ClientView {
        let client = try await service.audited("client.update", target: id, by: actor) {
            try await service.updateClient(id, change)
        }
        return ClientView(client)
    }

    public func removeClient(_ id: String) async throws -> RemovedClientView {
        let (client, revoked) = try await service.audited(
            "client.remove", target: id, by: actor, detail: { "revoked \($0.revoked)" }
        ) {
            try await service.removeClient(id)
        }
        return RemovedClientView(removed: client.clientID, revoked: revoked)
    }

    public func rotateClientSecret(_ id: String) async throws -> ClientSecretView {
        let (client, secret) = try await service.audited("client.rotate_secret", target: id, by: actor) {
            try await service.rotateClientSecret(id)
        }
        return ClientSecretView(clientID: client.clientID, clientSecret: secret)
    }

    public func audit(_ filter: AuditFilter) async throws -> AdminList<AuditEntryView> {
        let entries = try await service.auditLog(filter)
        return AdminList(items: entries.map(AuditEntryView.init), nextOffset: filter.page.next(after: entries.count))
    }
}
