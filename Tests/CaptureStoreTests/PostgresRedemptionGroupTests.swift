import CaptureCore
import CaptureStorage
import CaptureTestSupport
import Foundation
import Logging
import PostgresNIO
import Synchronization
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
        #expect(outcomes.count == 64 && outcomes.allSatisfy { if case .redeemed = $0 { true } else { false } }, "\(outcomes)")

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
    /// (the winner's new token too), the rest find it revoked. As when each has a transaction of its own. Nothing is
    /// timed: each held group is seen waiting for the lock (`pg_blocking_pids`), each presentation is seen asked, and
    /// afterwards the transactions that changed each chain's rows (a trigger of the test's records them) show that the
    /// sixteen ran as one group.
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
        func rows(_ sql: String) async throws -> [PostgresRow] {
            try await probe.query(PostgresQuery(unsafeSQL: sql), logger: logger).collect()
        }
        let schema = try #require(location.schema)
        // Which transaction changed which chain's rows.
        _ = try await rows("CREATE TABLE \(schema).test_changes (chain_id text, transaction_id xid8)")
        _ = try await rows(
            """
            CREATE FUNCTION \(schema).test_note_change() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN INSERT INTO \(schema).test_changes VALUES (NEW.chain_id, pg_current_xact_id()); RETURN NEW; END $$
            """)
        _ = try await rows(
            """
            CREATE TRIGGER test_note_change AFTER INSERT OR UPDATE ON \(schema).tokens
                FOR EACH ROW EXECUTE FUNCTION \(schema).test_note_change()
            """)
        let probeID = try #require(try await rows("SELECT pg_backend_pid()").first).decode(Int32.self)
        /// Whether `count` sessions wait behind the probe's lock, within a minute: on it, or on a session that waits
        /// on it (the second group waits for the first's lock on the row). (Inside a transaction, pg_stat_activity is
        /// read once unless its snapshot is cleared.)
        func waitingOnTheProbe(_ count: Int) async throws -> Bool {
            try await PostgresInstances.eventually(.seconds(60)) {
                _ = try await rows("SELECT pg_stat_clear_snapshot()")
                let row = try await rows(
                    """
                    WITH RECURSIVE behind(pid) AS (
                        SELECT pid FROM pg_stat_activity WHERE \(probeID) = ANY(pg_blocking_pids(pid))
                        UNION SELECT waiting.pid FROM pg_stat_activity waiting JOIN behind
                            ON behind.pid = ANY(pg_blocking_pids(waiting.pid)))
                    SELECT count(*) FROM behind
                    """)
                return try row.first!.decode(Int.self) == count
            }
        }
        _ = try await rows("BEGIN")
        _ = try await rows("SELECT id FROM \(schema).tokens WHERE chain_id = 'held' FOR UPDATE")
        let asked = Count()
        let (held, raced) = try await withThrowingTaskGroup(of: (Int, Redemption).self) { group in
            // Two groups, one after the other, wait for the held row; the sixteen presentations queue behind them.
            for index in 0..<2 {
                group.addTask { (-1, try await redeem("held", index)) }
                #expect(try await waitingOnTheProbe(index + 1), "held group \(index) waits for the row")
            }
            for index in 0..<16 {
                group.addTask {
                    asked.add()
                    return (index, try await redeem("stolen", index))
                }
            }
            #expect(
                try await PostgresInstances.eventually(.seconds(60)) { asked.value == 16 },
                "every presentation asked")
            _ = try await rows("COMMIT")
            var held: [Redemption] = [], raced: [Redemption] = []
            for try await (index, outcome) in group {
                if index < 0 { held.append(outcome) } else { raced.append(outcome) }
            }
            return (held, raced)
        }
        #expect(held.count == 2 && raced.count == 16)
        #expect(held.filter { if case .redeemed = $0 { true } else { false } }.count == 1, "\(held)")
        #expect(held.contains(.reused(RevokedTokens([.refresh: 2]))), "the second group waited for the first's commit")
        #expect(raced.filter { if case .redeemed = $0 { true } else { false } }.count == 1, "\(raced)")
        #expect(raced.filter { $0 == .reused(RevokedTokens([.refresh: 2])) }.count == 1, "\(raced)")
        #expect(raced.filter { $0 == .notUsable }.count == 14, "\(raced)")
        let chain = try await tokens.list(TokenFilter(userID: user.id, now: Fixtures.now)).filter { $0.chainID == "stolen" }
        #expect(chain.count == 2 && chain.allSatisfy { $0.revokedAt != nil })
        // The held chain was changed by two transactions (the two groups), the stolen one by one: the sixteen's group.
        let transactions = try await rows(
            """
            SELECT chain_id, count(DISTINCT transaction_id::text) FROM \(schema).test_changes
            WHERE chain_id IN ('held', 'stolen') GROUP BY chain_id ORDER BY chain_id
            """
        ).map { try $0.decode((String, Int).self) }
        #expect(transactions.map(\.0) == ["held", "stolen"] && transactions.map(\.1) == [2, 1], "\(transactions)")
    }

    /// A count tasks add to.
    final class Count: Sendable {
        private let count = Mutex(0)

        func add() { count.withLock { $0 += 1 } }
        var value: Int { count.withLock { $0 } }
    }
}
