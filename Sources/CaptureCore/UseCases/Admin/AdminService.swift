import Foundation

/// Operator use cases (capturectl today, the admin REST surface next).
/// Operators' verbs on users, tokens, admin keys, the outbox and imports.
public struct AdminService: Sendable {
    let users: any UserRepository
    let identities: any IdentityRepository
    let tokens: any TokenRepository
    let outbox: any OutboxRepository
    let adminKeys: any AdminKeyRepository
    let passkeys: any PasskeyRepository
    let secondFactors: any SecondFactorRepository
    let time: any TimeSource
    let minter: TokenMinter
    let mailSignal: MailSignal
    let metrics: CaptureMetrics
    let settings: ServiceSettings
    let catalog: FlowCatalog
    let clientAdmin: ClientAdministration
    let removal: AccountRemoval
    let audit: AuditTrail
}

extension AdminService {
    /// A user by id (uuid) or email address.
    public func findUser(_ reference: String) async throws -> User {
        if let user = try await users.find(id: reference) { return user }
        if let user = try await users.find(email: User.normalize(email: reference)) { return user }
        throw CaptureError.recordNotFound("user '\(reference)'")
    }

    /// Users in order of creation; `search` matches a part of the address or display name.
    /// With `filter` (Janrain's grammar, as `entity.find` takes it), the matching records in order of Janrain's `id`,
    /// found by the database; `search` and `filter` do not go together.
    public func listUsers(search: String? = nil, filter: String? = nil, page: Page = Page()) async throws -> [User] {
        guard let filter, !filter.isEmpty else { return try await users.list(search: search, page: page) }
        if let search, !search.isEmpty { throw CaptureError.invalidArgument("filter", "give search or filter, not both") }
        return try await users.find(
            EntityQuery(
                filter: try EntityFilter.parse(filter, schema: catalog.schema),
                maxResults: min(page.limit, EntityQuery.maxResultsLimit), firstResult: page.offset))
    }

    /// Tokens matching a filter, newest first; `user` may be an id or an address.
    public func listTokens(
        user: String? = nil, client: String? = nil, kind: TokenKind? = nil, state: TokenState? = nil, page: Page = Page()
    ) async throws -> [TokenRecord] {
        var userID: String?
        if let user { userID = try await findUser(user).id }
        if let client { _ = try await clientAdmin.findClient(client) }
        return try await tokens.list(
            TokenFilter(userID: userID, clientID: client, kind: kind, state: state, now: time.now(), page: page))
    }

    /// A token by numeric id or by fingerprint (a prefix of its hash, at least 6 hex digits).
    public func findToken(_ reference: String) async throws -> TokenRecord {
        if let id = Int64(reference), let record = try await tokens.find(id: id) { return record }
        let prefix = reference.lowercased()
        guard prefix.count >= 6, prefix.allSatisfy(\.isHexDigit) else {
            if Int64(reference) != nil { throw CaptureError.recordNotFound("token '\(reference)'") }
            throw CaptureError.invalidArgument(
                "token", "'\(reference)' is neither a numeric id nor a fingerprint of at least 6 hex digits")
        }
        let matches = try await tokens.find(fingerprint: prefix)
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
            ? try await tokens.revokeChain(record.chainID, of: record.userID, at: time.now())
            : try await tokens.revoke(id: id, at: time.now())
        metrics.revoked(revoked, .operatorAction)
        let count = revoked.count
        guard count > 0 else { throw CaptureError.notPermitted("token '\(reference)' was already revoked") }
        return count
    }

    public func revokeTokens(ofUser reference: String) async throws -> Int {
        let user = try await findUser(reference)
        let revoked = try await tokens.revokeAll(userID: user.id, at: time.now())
        metrics.revoked(revoked, .operatorAction)
        return revoked.count
    }

    /// Revokes every token issued to a client (its users sign in again); the client stays registered.
    public func revokeTokens(ofClient id: String) async throws -> Int {
        _ = try await clientAdmin.findClient(id)
        let revoked = try await tokens.revokeAll(clientID: id, at: time.now())
        metrics.revoked(revoked, .operatorAction)
        return revoked.count
    }

    /// Erases a user now: the record, every token, code, linked sign-in, passkey and message of theirs; their audit
    /// rows keep a removal.pseudonym (`erase`).
    public func deleteUser(_ reference: String) async throws -> User {
        let user = try await findUser(reference)
        guard try await removal.erase(user) else { throw CaptureError.recordNotFound("user '\(reference)'") }
        return user
    }

    /// Deletes the account on its owner's behalf (a request by mail or phone): as their own deletion, erased after
    /// the grace period unless they sign in and reactivate it.
    public func deactivateUser(_ reference: String) async throws -> User {
        let user = try await findUser(reference)
        if user.deleteRequestedAt != nil { return user }
        return try await removal.deactivate(user, locale: nil, by: "an operator")
    }

    /// Takes back a deletion (the owner asked): the account is active again and no longer due for erasure.
    public func reactivateUser(_ reference: String) async throws -> User {
        try await setDisabled(reference, disabled: false)
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
        try await users.update(user)
        if disabled { metrics.revoked(try await tokens.revokeAll(userID: user.id, at: time.now()), .accountDisabled) }
        return user
    }
}

extension AdminService {
    /// An operator's answer to a person who lost every factor: the account's passkeys and second factor go (the
    /// password, and recovery by mail, stay). Audited by the admin console that calls it.
    public func resetFactors(_ reference: String) async throws -> (User, passkeys: Int, secondFactor: Bool) {
        let user = try await findUser(reference)
        let passkeys = try await passkeys.removeAll(userID: user.id)
        let secondFactor = try await secondFactors.remove(userID: user.id)
        return (user, passkeys, secondFactor)
    }
}
