import Foundation

/// Operator use cases (capturectl today, the admin REST surface next).
extension CaptureService {
    /// A user by id (uuid) or email address.
    public func findUser(_ reference: String) async throws -> User {
        if let user = try await store.users.find(id: reference) { return user }
        if let user = try await store.users.find(email: User.normalize(email: reference)) { return user }
        throw CaptureError.recordNotFound("user '\(reference)'")
    }

    /// Users in order of creation; `search` matches a part of the address or display name.
    public func listUsers(search: String? = nil, page: Page = Page()) async throws -> [User] {
        try await store.users.list(search: search, page: page)
    }

    /// Tokens matching a filter, newest first; `user` may be an id or an address.
    public func listTokens(
        user: String? = nil, client: String? = nil, kind: TokenKind? = nil, state: TokenState? = nil, page: Page = Page()
    ) async throws -> [TokenRecord] {
        var userID: String?
        if let user { userID = try await findUser(user).id }
        if let client { _ = try await findClient(client) }
        return try await store.tokens.list(
            TokenFilter(userID: userID, clientID: client, kind: kind, state: state, now: time.now(), page: page))
    }

    /// A token by numeric id or by fingerprint (a prefix of its hash, at least 6 hex digits).
    public func findToken(_ reference: String) async throws -> TokenRecord {
        if let id = Int64(reference), let record = try await store.tokens.find(id: id) { return record }
        let prefix = reference.lowercased()
        guard prefix.count >= 6, prefix.allSatisfy(\.isHexDigit) else {
            if Int64(reference) != nil { throw CaptureError.recordNotFound("token '\(reference)'") }
            throw CaptureError.invalidArgument(
                "token", "'\(reference)' is neither a numeric id nor a fingerprint of at least 6 hex digits")
        }
        let matches = try await store.tokens.find(fingerprint: prefix)
        guard matches.count == 1, let record = matches.first else {
            if matches.isEmpty { throw CaptureError.recordNotFound("token '\(reference)'") }
            throw CaptureError.invalidArgument("token", "fingerprint '\(reference)' matches \(matches.count) tokens")
        }
        return record
    }

    /// Revokes one token (a refresh token takes its chain with it); returns how many were revoked.
    /// A token that was already revoked (with nothing left to revoke) is refused.
    public func revokeToken(_ reference: String) async throws -> Int {
        let record = try await findToken(reference)
        guard let id = record.id else { return 0 }
        let revoked =
            record.kind == .refresh
            ? try await store.tokens.revokeChain(record.chainID, of: record.userID, at: time.now())
            : try await store.tokens.revoke(id: id, at: time.now())
        metrics.revoked(revoked, .operatorAction)
        let count = revoked.count
        guard count > 0 else { throw CaptureError.notPermitted("token '\(reference)' was already revoked") }
        return count
    }

    public func revokeTokens(ofUser reference: String) async throws -> Int {
        let user = try await findUser(reference)
        let revoked = try await store.tokens.revokeAll(userID: user.id, at: time.now())
        metrics.revoked(revoked, .operatorAction)
        return revoked.count
    }

    /// Revokes every token issued to a client (its users sign in again); the client stays registered.
    public func revokeTokens(ofClient id: String) async throws -> Int {
        _ = try await findClient(id)
        let revoked = try await store.tokens.revokeAll(clientID: id, at: time.now())
        metrics.revoked(revoked, .operatorAction)
        return revoked.count
    }

    public func findClient(_ id: String) async throws -> Client {
        guard let client = try await store.clients.find(id: id) else { throw CaptureError.recordNotFound("client '\(id)'") }
        return client
    }

    public func listClients() async throws -> [Client] {
        try await store.clients.list()
    }

    /// Erases a user now: the record, every token, code, linked sign-in, passkey and message of theirs; their audit
    /// rows keep a pseudonym (`erase`).
    public func deleteUser(_ reference: String) async throws -> User {
        let user = try await findUser(reference)
        guard try await erase(user) else { throw CaptureError.recordNotFound("user '\(reference)'") }
        return user
    }

    /// Deletes the account on its owner's behalf (a request by mail or phone): as their own deletion, erased after
    /// the grace period unless they sign in and reactivate it.
    public func deactivateUser(_ reference: String) async throws -> User {
        let user = try await findUser(reference)
        if user.deleteRequestedAt != nil { return user }
        return try await deactivate(user, locale: nil, by: "an operator")
    }

    /// Takes back a deletion (the owner asked): the account is active again and no longer due for erasure.
    public func reactivateUser(_ reference: String) async throws -> User {
        try await setDisabled(reference, disabled: false)
    }

    /// Removes a client registered at run time and revokes its tokens; clients pinned in Settings are refused
    /// (start-up would bring them back).
    public func removeClient(_ id: String) async throws -> (client: Client, revoked: Int) {
        let client = try await findClient(id)
        try refuseSettingsClient(id, to: "remove")
        let revoked = try await store.tokens.revokeAll(clientID: id, at: time.now())
        metrics.revoked(revoked, .operatorAction)
        try await store.clients.delete(id: id)
        return (client, revoked.count)
    }

    /// A new secret for a confidential client, returned once; the old one stops working at once.
    public func rotateClientSecret(_ id: String) async throws -> (client: Client, secret: String) {
        var client = try await findClient(id)
        try refuseSettingsClient(id, to: "rotate the secret of")
        guard client.isConfidential else {
            throw CaptureError.notPermitted("client '\(id)' is public (a native app): it has no secret to rotate")
        }
        let secret = minter.mint()
        client.secretHash = TokenMinter.hash(secret)
        try await store.clients.upsert(client)
        return (client, secret)
    }

    func refuseSettingsClient(_ id: String, to verb: String) throws {
        if settings.clients.contains(where: { $0.clientId == id }) {
            throw CaptureError.notPermitted("client '\(id)' is defined in the settings (service.json); \(verb) it there")
        }
    }

    public func setDisabled(_ reference: String, disabled: Bool) async throws -> User {
        var user = try await findUser(reference)
        user.disabledAt = disabled ? (user.disabledAt ?? time.now()) : nil
        // Enabled again: no longer due for erasure either.
        if !disabled {
            user.deleteRequestedAt = nil
            user = RequestTimes.stamped(user, RequestTimes.deletion, nil, schema: catalog.schema)
        }
        user.updatedAt = time.now()
        try await store.users.update(user)
        if disabled { metrics.revoked(try await store.tokens.revokeAll(userID: user.id, at: time.now()), .accountDisabled) }
        return user
    }
}
