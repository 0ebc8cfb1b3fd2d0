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
}
