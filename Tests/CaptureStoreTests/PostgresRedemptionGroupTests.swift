import CaptureCore
import CaptureStorage
import CaptureTestSupport
import Foundation
import Logging
import PostgresNIO
import Testing

/// Issue 32, item 4: on PostgreSQL, redemptions that arrive together share a transaction and its commit
/// (`RedemptionGroups`), and every acknowledged one is stored. Which transaction wrote a row is PostgreSQL's own
/// record (`xmin`), read on a connection of the test's.
@Suite struct PostgresRedemptionGroupTests {
    typealias Fixtures = RepositoryConformanceTests

    @Test func concurrentRedemptionsShareTransactionsAndAreAllStored() async throws {
        let location = try await PostgresTestServer.shared.newSchema()
        let storage = try await OpenedStorage.open(.postgres(location))
        let tokens = storage.repositories.tokens
        let user = try await storage.repositories.users.insert(Fixtures.user("groups@example.com"))
        try await tokens.insert((0..<64).map { Fixtures.token(.refresh, "presented \($0)", user: user.id, chain: "c\($0)") })
        let outcomes = try await withThrowingTaskGroup(of: Redemption.self) { group in
            for index in 0..<64 {
                group.addTask {
                    try await tokens.redeem(
                        hash: TokenMinter.hash("presented \(index)"), kind: .refresh, now: Fixtures.now, client: "app",
                        allowExpired: false
                    ) { old in [Fixtures.token(.refresh, "next \(index)", user: old.userID, chain: old.chainID)] }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.allSatisfy { if case .redeemed = $0 { true } else { false } }, "\(outcomes)")

        let probe = try await PostgresTestServer.connectWhenASlotFrees(location)
        defer { Task { try? await probe.close() } }
        let schema = try #require(location.schema)
        let row = try #require(
            try await probe.query(
                PostgresQuery(
                    unsafeSQL: """
                        SELECT count(*) FILTER (WHERE used_at IS NOT NULL) AS used,
                            count(*) FILTER (WHERE used_at IS NULL) AS live,
                            count(DISTINCT xmin::text) FILTER (WHERE used_at IS NOT NULL) AS transactions
                        FROM \(schema).tokens
                        """), logger: Logger(label: "capture.test.postgres")
            ).collect().first)
        let (used, live, transactions) = try row.decode((Int, Int, Int).self)
        #expect(used == 64 && live == 64)
        #expect(transactions < 64, "64 redemptions took \(transactions) transactions")
        print("64 concurrent redemptions on PostgreSQL: \(transactions) transactions")
        let stored = Set(try await tokens.list(TokenFilter(userID: user.id, state: .active, now: Fixtures.now)).map(\.hash))
        #expect(stored == Set((0..<64).map { TokenMinter.hash("next \($0)") }))
    }

    /// A stolen refresh token presented sixteen times at once, the presentations queued behind two groups held by a
    /// row lock, so that they run as one group: the first is redeemed, the second finds it used and revokes its chain
    /// (the winner's new token too), the rest find it revoked. As when each has a transaction of its own.
    @Test func aTokenPresentedManyTimesInOneGroupRotatesOnceAndRevokesItsChain() async throws {
        let location = try await PostgresTestServer.shared.newSchema()
        let storage = try await OpenedStorage.open(.postgres(location))
        let tokens = storage.repositories.tokens
        let user = try await storage.repositories.users.insert(Fixtures.user("raced@example.com"))
        try await tokens.insert([
            Fixtures.token(.refresh, "held", user: user.id, chain: "held"),
            Fixtures.token(.refresh, "stolen", user: user.id, chain: "stolen"),
        ])
        @Sendable func redeem(_ secret: String, _ index: Int) async throws -> Redemption {
            try await tokens.redeem(
                hash: TokenMinter.hash(secret), kind: .refresh, now: Fixtures.now, client: "app", allowExpired: false
            ) { old in [Fixtures.token(.refresh, "\(secret) next \(index)", user: old.userID, chain: old.chainID)] }
        }
        let probe = try await PostgresTestServer.connectWhenASlotFrees(location)
        defer { Task { try? await probe.close() } }
        let logger = Logger(label: "capture.test.postgres")
        try await probe.query("BEGIN", logger: logger)
        try await probe.query(
            PostgresQuery(unsafeSQL: "SELECT id FROM \(try #require(location.schema)).tokens WHERE chain_id = 'held' FOR UPDATE"),
            logger: logger)
        let (held, raced) = try await withThrowingTaskGroup(of: (Int, Redemption).self) { group in
            // Two groups, one after the other, wait for the held row; the sixteen presentations queue behind them.
            for index in 0..<2 {
                group.addTask { (-1, try await redeem("held", index)) }
                try await Task.sleep(for: .milliseconds(200))
            }
            for index in 0..<16 { group.addTask { (index, try await redeem("stolen", index)) } }
            try await Task.sleep(for: .milliseconds(200))
            try await probe.query("COMMIT", logger: logger)
            var held: [Redemption] = [], raced: [Redemption] = []
            for try await (index, outcome) in group {
                if index < 0 { held.append(outcome) } else { raced.append(outcome) }
            }
            return (held, raced)
        }
        #expect(held.filter { if case .redeemed = $0 { true } else { false } }.count == 1, "\(held)")
        #expect(held.contains(.reused(RevokedTokens([.refresh: 2]))), "the second group waited for the first's commit")
        #expect(raced.filter { if case .redeemed = $0 { true } else { false } }.count == 1, "\(raced)")
        #expect(raced.filter { $0 == .reused(RevokedTokens([.refresh: 2])) }.count == 1, "\(raced)")
        #expect(raced.filter { $0 == .notUsable }.count == 14, "\(raced)")
        let chain = try await tokens.list(TokenFilter(userID: user.id, now: Fixtures.now)).filter { $0.chainID == "stolen" }
        #expect(chain.count == 2 && chain.allSatisfy { $0.revokedAt != nil })
    }
}
