import CaptureCore
import CaptureStore
import CaptureTestSupport
import Foundation
import GRDB
import Synchronization
import Testing

/// Refresh grants and code exchanges share transactions (group commit): fewer commits than redemptions, every
/// acknowledged redemption on disk, reuse detection unchanged when the same token races itself.
@Suite struct GroupCommitTests {
    /// Counts the transactions committed on the writer connection.
    final class CommitCounter: TransactionObserver, @unchecked Sendable {
        let commits = Mutex(0)
        func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { true }
        func databaseDidChange(with event: DatabaseEvent) {}
        func databaseDidCommit(_ db: Database) { commits.withLock { $0 += 1 } }
        func databaseDidRollback(_ db: Database) {}
    }

    /// `count` live refresh tokens of the user, each in a chain of its own; returns their plaintexts.
    static func refreshTokens(_ count: Int, in world: TestWorld, userID: String) async throws -> [String] {
        let now = world.time.now()
        let tokens = (0..<count).map { _ in world.service.minter.mint() }
        try await world.service.store.tokens.insert(
            tokens.map { token in
                TokenRecord(
                    kind: .refresh, hash: TokenMinter.hash(token), userID: userID, clientID: "demo-mobile-app",
                    chainID: world.service.minter.identifier(), issuedAt: now, expiresAt: now + 3600)
            })
        return tokens
    }

    @Test func concurrentRefreshesShareCommitsAndAllReachTheFile() async throws {
        let world = try await TestWorld.make(backend: .sqlite)
        let user = try await world.register("group@example.com").user
        let tokens = try await Self.refreshTokens(64, in: world, userID: user.id)
        let counter = CommitCounter()
        world.pool.add(transactionObserver: counter, extent: .observerLifetime)
        let grants = try await withThrowingTaskGroup(of: IssuedGrant.self) { group in
            for token in tokens {
                group.addTask {
                    try await world.service.tokens.refresh(refreshToken: token, clientID: "demo-mobile-app", clientSecret: nil)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(grants.count == 64)
        let commits = counter.commits.withLock { $0 }
        #expect(commits < 64, "64 redemptions took \(commits) commits")

        // A fresh connection to the file sees every redemption and every new token.
        let file = try DatabaseQueue(path: world.database)
        let (used, issued) = try await file.read { db in
            (
                try Int.fetchOne(db, sql: "SELECT count(*) FROM tokens WHERE kind = 'refresh' AND usedAt IS NOT NULL") ?? 0,
                try Set(String.fetchAll(db, sql: "SELECT hash FROM tokens WHERE usedAt IS NULL AND revokedAt IS NULL"))
            )
        }
        #expect(used == 64)
        for grant in grants {
            #expect(issued.contains(TokenMinter.key(grant.refreshToken)))
            #expect(issued.contains(TokenMinter.key(grant.accessToken)))
        }
    }

    /// One refresh token presented 16 times at once (a stolen copy racing the app): exactly one rotation wins; the
    /// next presentation finds it used and revokes the chain, the winner's new tokens included; the later ones find
    /// it revoked.
    @Test func aTokenRacingItselfRotatesOnceAndRevokesItsChain() async throws {
        let world = try await TestWorld.make()
        let token = try #require(try await world.register("race@example.com").grant).refreshToken
        let outcomes = await withTaskGroup(of: Result<IssuedGrant, any Error>.self) { group in
            for _ in 0..<16 {
                group.addTask {
                    do {
                        return .success(
                            try await world.service.tokens.refresh(
                                refreshToken: token, clientID: "demo-mobile-app", clientSecret: nil))
                    } catch {
                        return .failure(error)
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let winners = outcomes.compactMap { try? $0.get() }
        #expect(winners.count == 1)
        let reused = CaptureError.invalidGrant("refresh token was already used; its session has been revoked")
        let revoked = CaptureError.invalidGrant("refresh token is invalid, expired, revoked or belongs to another client")
        let errors = outcomes.compactMap { outcome -> CaptureError? in
            if case .failure(let error) = outcome { return error as? CaptureError } else { return nil }
        }
        #expect(errors.count == 15)
        #expect(errors.first { $0 != revoked } == reused && errors.filter { $0 == reused }.count == 1, "\(errors)")
        let winner = try #require(winners.first)
        await #expect(throws: CaptureError.invalidAccessToken) {
            try await world.service.profile.entity(accessToken: winner.accessToken)
        }
    }

    /// A write that fails in a group rolls back alone; the group's other writes are committed (on either backend).
    @Test func aFailingRedemptionLeavesTheOthersInItsGroup() async throws {
        let world = try await TestWorld.make()
        let user = try await world.register("fail@example.com").user
        let tokens = try await Self.refreshTokens(8, in: world, userID: user.id)
        let now = world.time.now()
        let outcomes = await withTaskGroup(of: (Int, Bool).self) { group in
            for (index, token) in tokens.enumerated() {
                group.addTask {
                    let redemption = try? await world.service.store.tokens.redeem(
                        hash: TokenMinter.hash(token), kind: .refresh, now: now, client: "demo-mobile-app",
                        allowExpired: false
                    ) { old in
                        // Even-numbered writes insert a token whose hash already exists: a unique index violation.
                        var next = old
                        next.id = nil
                        next.usedAt = nil
                        if index % 2 == 1 { next.hash = TokenMinter.hash("next \(index)") }
                        return [next]
                    }
                    return (index, redemption != nil)
                }
            }
            return await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
        for index in 0..<8 {
            #expect(outcomes[index] == (index % 2 == 1), "write \(index)")
        }
        let used = try await world.service.store.tokens.list(TokenFilter(userID: user.id, state: .used, now: now))
        let kept = tokens.enumerated().filter { $0.offset % 2 == 1 }.map { TokenMinter.hash($0.element) }
        #expect(Set(used.map(\.hash)) == Set(kept))
    }
}
