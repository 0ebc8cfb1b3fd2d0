import CaptureJSON

/// The table of operators' verbs. A new verb is one entry here (plus its use case in a feature); the admin routes
/// serve every entry of `all`, and both consoles perform any of them.
public enum AdminOperations {
    public static let all: [any AdminRoute] =
        [
            tokens, introspect, purgeExpiredTokens, token, revokeToken,
            users, user, deleteUser, disableUser, enableUser, deactivateUser, reactivateUser, exportUser, resetFactors,
            signOutUser, passwordFormats, clearPasswords,
            clients, addClient, client, updateClient, removeClient, rotateClientSecret, revokeClientTokens,
            audit, signingKeys, rotateSigningKeys,
        ] + WebhookOperations.all

    // MARK: tokens

    public static let tokens = AdminOperation<TokenQuery, AdminList<TokenView>>(
        .get, "/tokens", fields: ["user", "client", "kind", "state", "limit", "offset"],
        read: { call in
            TokenQuery(
                user: call.query["user"], client: call.query["client"], kind: call.query["kind"],
                state: call.query["state"], page: try call.page())
        },
        write: { query in
            AdminCall(
                query: AdminCall.query(
                    ["user": query.user, "client": query.client, "kind": query.kind, "state": query.state], page: query.page))
        }
    ) { features, query, _ in
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

    public static let token = AdminOperation<String, TokenView>(
        .get, "/tokens/:token", read: { try $0.reference("token") }, write: { AdminCall(references: ["token": $0]) }
    ) { features, reference, _ in
        let record = try await features.admin.findToken(reference)
        let email = try await features.store.users.find(id: record.userID)?.email
        return TokenView(record, email: email, now: features.time.now())
    }

    /// A refresh token takes its chain.
    public static let revokeToken = AdminOperation<String, RevocationView>(
        .post, "/tokens/:token/revoke", read: { try $0.reference("token") }, write: { AdminCall(references: ["token": $0]) },
        audit: { ("token.revoke", $0) }, detail: { "revoked \($0.revoked)" }
    ) { features, reference, _ in RevocationView(revoked: try await features.admin.revokeToken(reference)) }

    /// RFC 7662's fields (and the fingerprint) of a presented token, or `active: false` alone.
    public static let introspect = AdminOperation<String, IntrospectionView>(
        .post, "/tokens/introspect", fields: ["token"],
        read: { call in
            guard let token = try call.string("token"), !token.isEmpty else { throw CaptureError.missingArgument("token") }
            return token
        },
        write: { AdminCall(body: ["token": .string($0)]) }
    ) { features, token, _ in
        guard let introspection = try await features.tokens.introspect(token: token) else { return .inactive }
        return IntrospectionView(introspection)
    }

    public static let purgeExpiredTokens = AdminOperation<AdminNothing, PurgeView>(
        .post, "/tokens/purge-expired", read: { _ in AdminNothing() }, write: { _ in AdminCall() },
        audit: { _ in ("token.purge_expired", "tokens") }, detail: { "purged \($0.purged)" }
    ) { features, _, _ in PurgeView(purged: try await features.housekeeping.purgeExpiredTokens()) }

    // MARK: users

    public static let users = AdminOperation<UserQuery, AdminList<UserView>>(
        .get, "/users", fields: ["search", "filter", "limit", "offset"],
        read: { UserQuery(search: $0.query["search"], filter: $0.query["filter"], page: try $0.page()) },
        write: { AdminCall(query: AdminCall.query(["search": $0.search, "filter": $0.filter], page: $0.page)) }
    ) { features, query, _ in
        let users = try await features.admin.listUsers(search: query.search, filter: query.filter, page: query.page)
        return AdminList(items: users.map { UserView($0) }, nextOffset: query.page.next(after: users.count))
    }

    /// With `linkedAccounts`.
    public static let user = AdminOperation<String, UserView>(
        .get, "/users/:user", read: { try $0.reference("user") }, write: { AdminCall(references: ["user": $0]) }
    ) { features, reference, _ in
        let user = try await features.admin.findUser(reference)
        return UserView(user, linked: try await features.providerLinks.linkedAccounts(of: user))
    }

    /// How many users' passwords are in each stored format (imported legacy hashes still migrating).
    public static let passwordFormats = AdminOperation<AdminNothing, PasswordFormatsView>(
        .get, "/password-formats", read: { _ in AdminNothing() }, write: { _ in AdminCall() }
    ) { features, _, _ in PasswordFormatsView(try await features.admin.passwordFormats()) }

    /// Removes the passwords still in one legacy format (its users reset them): weak imports an operator will not keep.
    public static let clearPasswords = AdminOperation<String, PasswordsClearedView>(
        .post, "/password-formats/:format/clear", read: { try $0.reference("format") },
        write: { AdminCall(references: ["format": $0]) }, audit: { ("user.passwords_clear", $0) },
        detail: { "cleared \($0.cleared)" }
    ) { features, format, _ in PasswordsClearedView(cleared: try await features.admin.clearPasswords(format: format)) }

    public static let disableUser = userChange("/users/:user/disable", "user.disable") { features, reference in
        UserView(try await features.admin.setDisabled(reference, disabled: true))
    }

    public static let enableUser = userChange("/users/:user/enable", "user.enable") { features, reference in
        UserView(try await features.admin.setDisabled(reference, disabled: false))
    }

    /// The owner's deletion, on their behalf: deactivated now, erased after the grace period.
    public static let deactivateUser = userChange("/users/:user/deactivate", "user.deactivate") { features, reference in
        UserView(try await features.admin.deactivateUser(reference))
    }

    /// Takes back a deletion: active again, no longer due for erasure.
    public static let reactivateUser = userChange("/users/:user/reactivate", "user.reactivate") { features, reference in
        UserView(try await features.admin.reactivateUser(reference))
    }

    /// Everything kept about the user (`AccountExport`), to answer their request for it.
    public static let exportUser = AdminOperation<String, AccountExport>(
        .get, "/users/:user/export", read: { try $0.reference("user") }, write: { AdminCall(references: ["user": $0]) },
        audit: { ("user.export", $0) }
    ) { features, reference, _ in try await features.privacy.accountExport(of: try await features.admin.findUser(reference)) }

    /// Removes every passkey and the second factor of an account whose owner lost them (the password stays).
    public static let resetFactors = AdminOperation<String, FactorsResetView>(
        .post, "/users/:user/reset-factors", read: { try $0.reference("user") },
        write: { AdminCall(references: ["user": $0]) }, audit: { ("user.reset_factors", $0) },
        detail: { "\($0.passkeysRemoved) passkeys, second factor \($0.secondFactorRemoved ? "removed" : "none")" }
    ) { features, reference, _ in
        let (user, passkeys, secondFactor) = try await features.admin.resetFactors(reference)
        return FactorsResetView(user: user.id, passkeysRemoved: passkeys, secondFactorRemoved: secondFactor)
    }

    /// Signs the user out everywhere: every token of theirs revoked.
    public static let signOutUser = AdminOperation<String, RevocationView>(
        .post, "/users/:user/sign-out", read: { try $0.reference("user") }, write: { AdminCall(references: ["user": $0]) },
        audit: { ("user.sign_out", $0) }, detail: { "revoked \($0.revoked)" }
    ) { features, reference, _ in RevocationView(revoked: try await features.admin.revokeTokens(ofUser: reference)) }

    /// Erases the account. Audited under the pseudonym the erasure leaves in the log, never the reference (often the
    /// address), so it writes its own row.
    public static let deleteUser = AdminOperation<String, DeletedUserView>(
        .delete, "/users/:user", read: { try $0.reference("user") }, write: { AdminCall(references: ["user": $0]) }
    ) { features, reference, actor in
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
            "user.delete", target: features.admin.removal.pseudonym(of: user), by: actor, outcome: AuditEntry.success,
            detail: nil)
        return DeletedUserView(deleted: user.id, email: user.email)
    }

    // MARK: clients

    public static let clients = AdminOperation<AdminNothing, AdminList<ClientView>>(
        .get, "/clients", read: { _ in AdminNothing() }, write: { _ in AdminCall() }
    ) { features, _, _ in
        var views: [ClientView] = []
        for client in try await features.clientAdmin.listClients() {
            views.append(ClientView(client, pages: try await features.clientAdmin.ownPages(of: client.clientID)))
        }
        return AdminList(items: views, nextOffset: nil)
    }

    public static let client = AdminOperation<String, ClientView>(
        .get, "/clients/:client", read: { try $0.reference("client") }, write: { AdminCall(references: ["client": $0]) }
    ) { features, id, _ in
        ClientView(try await features.clientAdmin.findClient(id), pages: try await features.clientAdmin.ownPages(of: id))
    }

    /// With `clientSecret` once for a confidential client.
    public static let addClient = AdminOperation<ClientDraft, ClientView>(
        .post, "/clients", fields: ClientDraft.fields, status: 201, read: ClientDraft.init(call:), write: \.call,
        audit: { ("client.add", $0.id) }
    ) { features, draft, _ in
        let (client, secret) = try await features.clientAdmin.addClient(draft)
        return ClientView(client, pages: try await features.clientAdmin.ownPages(of: client.clientID), secret: secret)
    }

    public static let updateClient = AdminOperation<ClientUpdate, ClientView>(
        .patch, "/clients/:client", fields: ClientChange.fields,
        read: { ClientUpdate(id: try $0.reference("client"), change: try ClientChange(call: $0)) },
        write: { input in
            var call = input.change.call
            call.references["client"] = input.id
            return call
        },
        audit: { ("client.update", $0.id) }
    ) { features, input, _ in
        ClientView(
            try await features.clientAdmin.updateClient(input.id, input.change),
            pages: try await features.clientAdmin.ownPages(of: input.id))
    }

    public static let removeClient = AdminOperation<String, RemovedClientView>(
        .delete, "/clients/:client", read: { try $0.reference("client") }, write: { AdminCall(references: ["client": $0]) },
        audit: { ("client.remove", $0) }, detail: { "revoked \($0.revoked)" }
    ) { features, id, _ in
        let (client, revoked) = try await features.clientAdmin.removeClient(id)
        return RemovedClientView(removed: client.clientID, revoked: revoked)
    }

    /// The secret shown once.
    public static let rotateClientSecret = AdminOperation<String, ClientSecretView>(
        .post, "/clients/:client/rotate-secret", read: { try $0.reference("client") },
        write: { AdminCall(references: ["client": $0]) }, audit: { ("client.rotate_secret", $0) }
    ) { features, id, _ in
        let (client, secret) = try await features.clientAdmin.rotateClientSecret(id)
        return ClientSecretView(clientID: client.clientID, clientSecret: secret)
    }

    public static let revokeClientTokens = AdminOperation<String, RevocationView>(
        .post, "/clients/:client/revoke-tokens", read: { try $0.reference("client") },
        write: { AdminCall(references: ["client": $0]) }, audit: { ("client.revoke_tokens", $0) },
        detail: { "revoked \($0.revoked)" }
    ) { features, id, _ in RevocationView(revoked: try await features.admin.revokeTokens(ofClient: id)) }

    // MARK: audit

    public static let audit = AdminOperation<AuditFilter, AdminList<AuditEntryView>>(
        .get, "/audit", fields: ["actor", "action", "target", "limit", "offset"],
        read: {
            AuditFilter(actor: $0.query["actor"], action: $0.query["action"], target: $0.query["target"], page: try $0.page())
        },
        write: {
            AdminCall(query: AdminCall.query(["actor": $0.actor, "action": $0.action, "target": $0.target], page: $0.page))
        }
    ) { features, filter, _ in
        let entries = try await features.audit.auditLog(filter)
        return AdminList(items: entries.map(AuditEntryView.init), nextOffset: filter.page.next(after: entries.count))
    }

    // MARK: signing keys

    /// Every stored signing key (OpenID Connect), never its private material.
    public static let signingKeys = AdminOperation<AdminNothing, AdminList<SigningKeyView>>(
        .get, "/keys", read: { _ in AdminNothing() }, write: { _ in AdminCall() }
    ) { features, _, _ in
        let now = features.time.now()
        return AdminList(
            items: try await features.signingKeys.list().map { SigningKeyView($0, now: now) }, nextOffset: nil)
    }

    /// A new key for the algorithm (`algorithm`: RS256 or ES256), or for both; the keys replaced stay published until
    /// the ID tokens they signed expire. Answers the new keys.
    public static let rotateSigningKeys = AdminOperation<[JWSAlgorithm], AdminList<SigningKeyView>>(
        .post, "/keys/rotate", fields: ["algorithm"],
        read: { call in
            guard let name = try call.string("algorithm") else { return JWSAlgorithm.allCases }
            guard let algorithm = JWSAlgorithm.named(name) else {
                throw CaptureError.invalidArgument("algorithm", "must be RS256 or ES256")
            }
            return [algorithm]
        },
        write: { algorithms in
            algorithms.count == 1 ? AdminCall(body: ["algorithm": .string(algorithms[0].rawValue)]) : AdminCall()
        },
        audit: { algorithms in ("keys.rotate", algorithms.map(\.rawValue).joined(separator: ",")) },
        detail: { "new " + $0.items.map(\.kid).joined(separator: ",") }
    ) { features, algorithms, _ in
        let now = features.time.now()
        return AdminList(
            items: try await features.signingKeys.rotate(algorithms).map { SigningKeyView($0, now: now) }, nextOffset: nil)
    }

    /// A change of one user, named by the path, audited under `action` with the reference as its target.
    static func userChange(
        _ path: String, _ action: String, _ run: @escaping @Sendable (CaptureFeatures, String) async throws -> UserView
    ) -> AdminOperation<String, UserView> {
        AdminOperation(
            .post, path, read: { try $0.reference("user") }, write: { AdminCall(references: ["user": $0]) },
            audit: { (action, $0) }
        ) { features, reference, _ in try await run(features, reference) }
    }
}

/// A client's id and what to change of it.
public struct ClientUpdate: Sendable, Equatable {
    public var id: String
    public var change: ClientChange

    public init(id: String, change: ClientChange) {
        self.id = id
        self.change = change
    }
}

/// The input of an operation that takes none.
public struct AdminNothing: Sendable, Equatable {
    public init() {}
}

extension ClientDraft {
    static let fields: Set<String> = [
        "client_id", "name", "confidential", "redirect_uris", "allowed_origins", "response_types", "legacy_token_url",
        "site_name", "verify_email_url", "password_recover_url", "features", "whitelist",
    ]

    init(call: AdminCall) throws {
        guard let id = try call.string("client_id") else { throw CaptureError.missingArgument("client_id") }
        self.init(id: id)
        name = try call.string("name")
        confidential = try call.bool("confidential") ?? false
        redirectURIs = try call.strings("redirect_uris") ?? []
        allowedOrigins = try call.strings("allowed_origins") ?? []
        responseTypes = try call.strings("response_types") ?? []
        legacyTokenURL = try call.bool("legacy_token_url") ?? false
        pages = ClientPages(
            siteName: try call.string("site_name"), verifyEmailURL: try call.string("verify_email_url"),
            passwordRecoverURL: try call.string("password_recover_url"))
        features = try call.strings("features").map { try ClientFeature.parsed($0) }
        whitelist = try call.strings("whitelist") ?? []
    }

    var call: AdminCall {
        var body: [String: JSONValue] = [
            "client_id": .string(id), "confidential": .bool(confidential),
            "redirect_uris": .array(redirectURIs.map(JSONValue.string)),
            "allowed_origins": .array(allowedOrigins.map(JSONValue.string)),
            "response_types": .array(responseTypes.map(JSONValue.string)), "legacy_token_url": .bool(legacyTokenURL),
        ]
        if let name { body["name"] = .string(name) }
        for (key, value) in pages.janrainClientSettings { body[key] = .string(value) }
        if let features { body["features"] = .array(features.sorted().map { .string($0.rawValue) }) }
        if !whitelist.isEmpty { body["whitelist"] = .array(whitelist.map(JSONValue.string)) }
        return AdminCall(body: body)
    }
}

extension ClientChange {
    static let fields: Set<String> = [
        "name", "redirect_uris", "allowed_origins", "response_types", "legacy_token_url", "site_name", "verify_email_url",
        "password_recover_url", "features", "whitelist",
    ]

    init(call: AdminCall) throws {
        self.init()
        name = try call.string("name")
        redirectURIs = try call.strings("redirect_uris")
        allowedOrigins = try call.strings("allowed_origins")
        responseTypes = try call.strings("response_types")
        legacyTokenURL = try call.bool("legacy_token_url")
        siteName = try call.string("site_name")
        verifyEmailURL = try call.string("verify_email_url")
        passwordRecoverURL = try call.string("password_recover_url")
        features = try call.strings("features").map { try ClientFeature.parsed($0) }
        whitelist = try call.strings("whitelist")
    }

    var call: AdminCall {
        var body: [String: JSONValue] = [:]
        if let name { body["name"] = .string(name) }
        if let redirectURIs { body["redirect_uris"] = .array(redirectURIs.map(JSONValue.string)) }
        if let allowedOrigins { body["allowed_origins"] = .array(allowedOrigins.map(JSONValue.string)) }
        if let responseTypes { body["response_types"] = .array(responseTypes.map(JSONValue.string)) }
        if let legacyTokenURL { body["legacy_token_url"] = .bool(legacyTokenURL) }
        let pages = [("site_name", siteName), ("verify_email_url", verifyEmailURL), ("password_recover_url", passwordRecoverURL)]
        for case (let key, let value?) in pages { body[key] = .string(value) }
        if let features { body["features"] = .array(features.sorted().map { .string($0.rawValue) }) }
        if let whitelist { body["whitelist"] = .array(whitelist.map(JSONValue.string)) }
        return AdminCall(body: body)
    }
}
