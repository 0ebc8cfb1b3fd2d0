import CaptureCache
import CaptureCore
import Foundation
import PostgresNIO

/// Token checks on PostgreSQL (`TokenChecks`), and what `CachedTokenChecks` reads through them (`TokenCheckReads`):
/// one prepared statement (`TokenLookupStatements`) for the common case; for `/entity`, the linked accounts and
/// passkeys only when the row says the user has some. Caching and its counting are `CachedTokenChecks`'.
struct PostgresTokenChecks: TokenChecks, TokenCheckReads {
    let store: PostgresStore

    /// Whether the selected user (`u`) has linked accounts or passkeys (index lookups).
    static let linkedColumns = """
        ,
            EXISTS (SELECT 1 FROM identities i WHERE i.user_id = u.id) AS has_identities,
            EXISTS (SELECT 1 FROM passkeys p WHERE p.user_id = u.id) AS has_passkeys
        """

    func check(_ key: String, _ depth: TokenCheck.Depth) async throws -> TokenCheck? {
        try await read(key, depth)?.check
    }

    func read(_ key: String, _ depth: TokenCheck.Depth) async throws -> (check: TokenCheck, userRow: Int64?)? {
        switch depth {
        case .account:
            // The token, its account's standing and the clients' version (`TokenAccountStatement`).
            guard let row = try await store.read(prepared: TokenAccountStatement(key: key), operation: "check(account)").first
            else { return nil }
            let columns = Columns(row)
            let account = try columns("account_id", as: String?.self).map { id in
                AccountSummary(
                    id: id, email: try columns("account_email"), emailVerified: try columns("account_email_verified"),
                    disabledAt: try columns("account_disabled_at", as: Date?.self))
            }
            let check = TokenCheck(
                record: try PostgresTokenRepository.record(row), account: account,
                clientsVersion: try columns("clients_version"))
            return (check, try columns("account_key", as: Int64?.self))
        case .user, .record:
            // The token, its user and the clients' version (`TokenUserStatement`).
            let operation = depth == .user ? "check(user)" : "check(record)"
            guard let row = try await store.read(prepared: TokenUserStatement(key: key), operation: operation).first else {
                return nil
            }
            let columns = Columns(row)
            let found = try columns("u_id", as: String?.self) != nil
            let user = found ? try PostgresUserRepository.record(row, prefix: "u_", parsingProfile: depth == .user) : nil
            let check = try await withRecord(
                TokenCheck(
                    record: try PostgresTokenRepository.record(row), user: user, clientsVersion: try columns("clients_version")),
                row, depth)
            return (check, try columns("u_key", as: Int64?.self))
        }
    }

    /// The kept check's user, read by its id (`KeptUserStatement`); nil when the row is gone.
    func complete(_ kept: TokenCheck, userRow: Int64, _ depth: TokenCheck.Depth) async throws -> TokenCheck? {
        let operation = depth == .user ? "kept(user)" : "kept(record)"
        guard let row = try await store.read(prepared: KeptUserStatement(key: kept.record.userID), operation: operation).first
        else { return nil }
        let user = try PostgresUserRepository.record(row, prefix: "u_", parsingProfile: depth == .user)
        return try await withRecord(
            TokenCheck(record: kept.record, user: user, clientsVersion: kept.clientsVersion), row, depth)
    }

    /// For `.record`: `check` with its user's stored profile text and the linked accounts and passkeys the row says
    /// there are (read through their repositories).
    private func withRecord(_ check: TokenCheck, _ row: PostgresRow, _ depth: TokenCheck.Depth) async throws -> TokenCheck {
        guard depth == .record, let user = check.user else { return check }
        let columns = Columns(row)
        let linked =
            try columns("has_identities", as: Bool.self)
            ? try await PostgresIdentityRepository(store: store).list(userID: user.id) : []
        let passkeys =
            try columns("has_passkeys", as: Bool.self)
            ? try await PostgresPasskeyRepository(store: store).list(userID: user.id) : []
        return TokenCheck(
            record: check.record, user: user, clientsVersion: check.clientsVersion, storedProfile: try columns("u_profile"),
            profiles: linked, passkeys: passkeys)
    }
}
