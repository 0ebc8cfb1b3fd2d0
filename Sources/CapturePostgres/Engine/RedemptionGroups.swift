import CaptureCore
import Foundation
import PostgresNIO
import Synchronization

/// Group commit for redemptions (a refresh grant, a code exchange) on PostgreSQL: the redemptions that arrive while
/// `concurrentGroups` groups are in progress wait, then run together in one transaction of four round trips whatever
/// their number (BEGIN; every token locked with its account's standing; every step; COMMIT) and share its commit.
/// Each caller resumes only after that commit, so an acknowledged redemption is as durable as with a transaction of
/// its own (`synchronous_commit` on). Within a group, redemptions are decided one after another on what the earlier
/// ones did (a token presented twice is used the second time), so reuse detection is unchanged. Should the group's
/// transaction fail for another reason than an unreachable database, each of its redemptions runs again alone, so
/// the failing one alone is lost. Nothing waits on a timer: with a group free, a redemption starts at once.
final class RedemptionGroups: Sendable {
    /// At most this many redemptions share a transaction, so one commit's wait stays short.
    static let batchLimit = 64
    /// Groups in progress at once: while one waits for its commit, the next reads and decides.
    static let concurrentGroups = 2

    private let store: PostgresStore
    private let state = Mutex(State())

    private struct State {
        var waiting: [Pending] = []
        var running = 0
    }

    /// One caller's redemption, resumed once its group's transaction is over.
    struct Pending: Sendable {
        let hash: String
        let now: Date
        let decide: @Sendable (TokenRecord?, Bool) -> RedemptionStep
        let continuation: CheckedContinuation<Redemption, any Error>
    }

    init(store: PostgresStore) {
        self.store = store
    }

    func redeem(
        hash: String, now: Date, _ decide: @escaping @Sendable (TokenRecord?, Bool) -> RedemptionStep
    ) async throws -> Redemption {
        try await withCheckedThrowingContinuation { continuation in
            let starts = state.withLock { state in
                state.waiting.append(Pending(hash: hash, now: now, decide: decide, continuation: continuation))
                guard state.running < Self.concurrentGroups else { return false }
                state.running += 1
                return true
            }
            if starts { Task { await self.runGroups() } }
        }
    }

    /// Runs groups until nobody waits.
    private func runGroups() async {
        while let group = nextGroup() { await run(group) }
    }

    private func nextGroup() -> [Pending]? {
        state.withLock { state in
            guard !state.waiting.isEmpty else {
                state.running -= 1
                return nil
            }
            let group = Array(state.waiting.prefix(Self.batchLimit))
            state.waiting.removeFirst(group.count)
            return group
        }
    }

    private func run(_ group: [Pending]) async {
        do {
            let outcomes = try await store.transaction(
                operation: "redeem", mayTellChanges: { $0.contains(where: \.revokedTokens) }
            ) { connection in try await Self.redeem(group, on: connection) }
            for (pending, outcome) in zip(group, outcomes) { pending.continuation.resume(returning: outcome) }
        } catch let error where group.count > 1 && error as? CaptureError != .storageUnavailable {
            for pending in group { await run([pending]) }
        } catch {
            for pending in group { pending.continuation.resume(throwing: error) }
        }
    }

    /// The group's tokens locked in the order of their ids (two groups' locks on their tokens never wait for each
    /// other in a circle; a deadlock PostgreSQL finds elsewhere fails the group, which then runs one by one), each
    /// step decided on the tokens as the steps before it left them, the plain redemptions carried out together in
    /// one statement and a chain's revocation in one of its own, after those decided before it.
    static func redeem(_ group: [Pending], on connection: PostgresConnection) async throws -> [Redemption] {
        let hashes = Array(Set(group.map(\.hash)))
        var found: [String: (token: TokenRecord, disabled: Bool)] = [:]
        for row in try await connection.rows(
            """
            SELECT \(unescaped: PostgresTokenRepository.columns), u.id AS account_id,
                u.disabled_at AS account_disabled_at
            FROM tokens LEFT JOIN users u ON u.id = tokens.user_id
            WHERE hash = ANY(\(hashes)) ORDER BY tokens.id FOR UPDATE OF tokens
            """)
        {
            let token = try PostgresTokenRepository.record(row)
            let columns = Columns(row)
            // Deactivated, or gone (a deleted account took its tokens, so only within a race).
            let disabled =
                try columns("account_id", as: String?.self) == nil || columns("account_disabled_at", as: Date?.self) != nil
            found[token.hash] = (token, disabled)
        }
        var used: [TokenRecord] = [], replacements: [TokenRecord] = []
        func carryOutRedemptions() async throws {
            guard !used.isEmpty else { return }
            try await connection.rows(markUsed(used, replacingWith: replacements))
            used = []
            replacements = []
        }
        func revokeChain(of old: TokenRecord, at now: Date) async throws -> RevokedTokens {
            try await carryOutRedemptions()
            for (hash, entry) in found where entry.token.chainID == old.chainID && entry.token.userID == old.userID {
                found[hash]?.token.revokedAt = entry.token.revokedAt ?? now
            }
            return try await PostgresTokenRepository.revokeChain(old.chainID, of: old.userID, at: now, on: connection)
        }
        var outcomes: [Redemption] = []
        for pending in group {
            let entry = found[pending.hash]
            switch (pending.decide(entry?.token, entry?.disabled ?? false), entry?.token) {
            case (.redeem(let next), var old?):
                old.usedAt = pending.now
                found[pending.hash]?.token = old
                used.append(old)
                replacements += next
                outcomes.append(.redeemed(old))
            case (.revokeChain, let old?):
                outcomes.append(.reused(try await revokeChain(of: old, at: pending.now)))
            case (.revokeChainOfDisabledAccount, let old?):
                outcomes.append(.accountDisabled(try await revokeChain(of: old, at: pending.now)))
            default:
                outcomes.append(.notUsable)
            }
        }
        try await carryOutRedemptions()
        return outcomes
    }

    /// One statement: each of `used` marked used at its `usedAt`, and `replacements` stored.
    static func markUsed(_ used: [TokenRecord], replacingWith replacements: [TokenRecord]) -> PostgresQuery {
        var binds = PostgresBindings()
        func bind(_ value: some PostgresDynamicTypeEncodable) -> String {
            binds.append(value)
            return "$\(binds.count)"
        }
        func bindOptional(_ value: (some PostgresDynamicTypeEncodable)?) -> String {
            if let value { return bind(value) }
            return "NULL"
        }
        let marks = used.map { "(\(bind($0.id ?? 0))::int8, \(bind($0.usedAt ?? Date()))::timestamptz)" }
        let update = """
            UPDATE tokens SET used_at = marks.used_at FROM (VALUES \(marks.joined(separator: ", "))) AS marks (id, used_at)
            WHERE tokens.id = marks.id
            """
        guard !replacements.isEmpty else { return PostgresQuery(unsafeSQL: update, binds: binds) }
        let rows = replacements.map { token in
            let values = [
                bind(token.kind.rawValue), bind(token.hash), bind(token.userID), bind(token.clientID), bind(token.chainID),
                bind(token.scope), bind(token.authProvider), bind(token.issuedAt), bind(token.expiresAt),
                bindOptional(token.usedAt), bindOptional(token.revokedAt), bindOptional(token.refreshSecret),
                bindOptional(token.redirectURI), bindOptional(token.codeChallenge), bindOptional(token.device),
            ]
            return "(" + values.joined(separator: ", ") + ")"
        }
        let sql = """
            WITH used AS (\(update))
            INSERT INTO tokens (kind, hash, user_id, client_id, chain_id, scope, auth_provider, issued_at, expires_at,
                used_at, revoked_at, refresh_secret, redirect_uri, code_challenge, device)
            VALUES \(rows.joined(separator: ", "))
            """
        return PostgresQuery(unsafeSQL: sql, binds: binds)
    }
}
