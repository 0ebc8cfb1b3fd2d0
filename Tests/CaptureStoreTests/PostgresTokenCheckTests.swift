import CaptureCore
import CaptureTestSupport
import Foundation
import Testing

/// Issue 32, items 2 and 3: token checks kept in memory on PostgreSQL, retired by the change notices. Two instances
/// on one database, each running its services as the server does: a token made useless through one (revoked by id,
/// by chain or all of a user's, the account deactivated or deleted) is refused by that one at once and by the other
/// once the notice arrives; a check is answered from memory only while its instance hears the notices, so one whose
/// listening connection is ended or stops answering reads every check until it listens again. The tests wait for
/// the other instance's refusal itself and print how long it took; `make bench` (`TestTiming.bounded`) holds those
/// times to the promised bounds (within a second, issue 32 item 3), which a machine busy with `make test`'s other
/// lane cannot.
@Suite struct PostgresTokenCheckTests {
    typealias Fixtures = RepositoryConformanceTests

    /// Whether a check would let the token through (expiry is the caller's rule; these never expire in the test).
    static func good(_ lookup: TokenCheck?) -> Bool {
        guard let lookup, let account = lookup.account else { return false }
        return lookup.record.revokedAt == nil && account.disabledAt == nil
    }

    /// Prints how long after its reply each of `count` revocations was seen by the other instance (median and
    /// slowest); under `make bench`, each within a second.
    static func report(_ delays: [Duration], of count: Int, _ how: String) throws {
        #expect(delays.count == count, "\(how): \(delays.count) of \(count) revocations seen by the other instance")
        let sorted = delays.sorted()
        let slowest = try #require(sorted.last)
        print("revocations \(how), seen by the other instance after: median \(sorted[sorted.count / 2]), slowest \(slowest)")
        if TestTiming.bounded {
            #expect(slowest < .seconds(1), "\(how): the slowest of \(delays.count) revocations was seen after \(slowest)")
        }
    }

    @Test func aTokenMadeUselessIsRefusedAtOnceHereAndWithinASecondThere() async throws {
        try await PostgresInstances.run { pair in
            #expect(try await pair.bothListening())
            let (first, second) = (pair.first.repositories, pair.second.repositories)
            var user = try await first.users.insert(Fixtures.user("kept@example.com"), linking: nil)
            let clock = ContinuousClock()
            var delays: [Duration] = []
            for round in 0..<25 {
                let token = Fixtures.token(.access, "kept-\(round)", user: user.id, chain: "chain-\(round)")
                try await first.tokens.insert([token])
                let id = try #require(try await first.tokens.find(hash: token.hash)?.id)
                // Kept by both (the second read of each is answered from memory).
                for store in [first, second] {
                    #expect(Self.good(try await store.checks.check(token.hash, .account)))
                    #expect(Self.good(try await store.checks.check(token.hash, .account)))
                    #expect(try await store.checks.check(token.hash, .record)?.user?.email == user.email)
                }
                switch round % 5 {
                case 0: try await first.tokens.revoke(id: id, at: Fixtures.now)
                case 1: try await first.tokens.revokeChain(token.chainID, of: user.id, at: Fixtures.now)
                case 2: try await first.tokens.revokeAll(userID: user.id, at: Fixtures.now)
                case 3: try await first.tokens.revokeAll(clientID: token.clientID, at: Fixtures.now)
                default:
                    user.disabledAt = Fixtures.now
                    try await first.users.update(user)
                }
                #expect(!Self.good(try await first.checks.check(token.hash, .account)), "round \(round): here, at once")
                let started = clock.now
                let refused = try await PostgresInstances.eventually(TestTiming.patience) {
                    try await !Self.good(second.checks.check(token.hash, .account))
                }
                #expect(refused, "round \(round): there, once the notice arrives")
                if refused { delays.append(clock.now - started) }
                if user.disabledAt != nil {
                    user.disabledAt = nil
                    try await first.users.update(user)
                }
            }
            // The account deleted: its checks go with it, here at once and there within a second.
            let last = Fixtures.token(.access, "kept-last", user: user.id, chain: "chain-last")
            try await first.tokens.insert([last])
            for store in [first, second] { _ = try await store.checks.check(last.hash, .account) }
            #expect(Self.good(try await second.checks.check(last.hash, .account)))
            #expect(try await first.users.delete(id: user.id))
            #expect(try await first.checks.check(last.hash, .account) == nil)
            #expect(
                try await PostgresInstances.eventually(TestTiming.patience) {
                    try await second.checks.check(last.hash, .account) == nil
                })
            try Self.report(delays, of: 25, "one at a time")
        }
    }

    /// Issue 32, item 3's measure: revocations made by four concurrent callers through one instance while the other
    /// answers checks of the same tokens from memory; each revoked token is refused there (under `make bench`, within a
    /// second of its revocation's reply: the slowest is the p99 of 40).
    @Test func revocationsUnderARevokingLoadAreSeenThereWithinASecond() async throws {
        try await PostgresInstances.run { pair in
            #expect(try await pair.bothListening())
            let (first, second) = (pair.first.repositories, pair.second.repositories)
            let user = try await first.users.insert(Fixtures.user("load@example.com"), linking: nil)
            var tokens: [(hash: String, id: Int64)] = []
            for n in 0..<40 {
                let token = Fixtures.token(.access, "load-\(n)", user: user.id, chain: "load-\(n)")
                try await first.tokens.insert([token])
                tokens.append((token.hash, try #require(try await first.tokens.find(hash: token.hash)?.id)))
                _ = try await second.checks.check(token.hash, .account)
                #expect(Self.good(try await second.checks.check(token.hash, .account)))
            }
            let clock = ContinuousClock()
            let revoked = try await withThrowingTaskGroup(of: [(String, ContinuousClock.Instant)].self) { group in
                for caller in 0..<4 {
                    let mine = tokens.enumerated().filter { $0.offset % 4 == caller }.map(\.element)
                    group.addTask {
                        var done: [(String, ContinuousClock.Instant)] = []
                        for token in mine {
                            try await first.tokens.revoke(id: token.id, at: Fixtures.now)
                            done.append((token.hash, clock.now))
                        }
                        return done
                    }
                }
                // Meanwhile the other instance checks every token over and over.
                var refusedAt: [String: ContinuousClock.Instant] = [:]
                let deadline = clock.now + TestTiming.patience
                while refusedAt.count < tokens.count && clock.now < deadline {
                    for token in tokens where refusedAt[token.hash] == nil {
                        if !Self.good(try await second.checks.check(token.hash, .account)) {
                            refusedAt[token.hash] = clock.now
                        }
                    }
                }
                var replies: [String: ContinuousClock.Instant] = [:]
                for try await done in group { for (hash, at) in done { replies[hash] = at } }
                return tokens.map { (replies[$0.hash]!, refusedAt[$0.hash]) }
            }
            try Self.report(
                revoked.compactMap { reply, refused in refused.map { max(.zero, $0 - reply) } }, of: tokens.count,
                "under a revoking load")
        }
    }

    @Test func aKeptCheckIsAnsweredOnlyWhileItsInstanceHearsTheNotices() async throws {
        try await PostgresInstances.run { pair in
            #expect(try await pair.bothListening())
            let (first, second) = (pair.first.repositories, pair.second.repositories)
            let schema = pair.location.schema!
            let user = try await first.users.insert(Fixtures.user("silent@example.com"), linking: nil)

            /// A token kept by the second instance, then revoked behind the notices' back (triggers off for the probe's
            /// session): only a check answered from memory still lets it through.
            func keptThenRevokedUntold(_ name: String) async throws -> TokenRecord {
                let token = Fixtures.token(.access, name, user: user.id, chain: name)
                try await first.tokens.insert([token])
                _ = try await second.checks.check(token.hash, .account)
                try await pair.read("SET session_replication_role = replica")
                try await pair.read("UPDATE \(schema).tokens SET revoked_at = now() WHERE hash = '\(token.hash)'")
                try await pair.read("SET session_replication_role = DEFAULT")
                #expect(Self.good(try await second.checks.check(token.hash, .account)), "\(name): from memory")
                #expect(!Self.good(try await first.checks.check(token.hash, .account)), "\(name): read")
                return token
            }
            let clock = ContinuousClock()

            // The listening backends stop answering (as a server or a network that hangs would): they are given up (under
            // `make bench`, within the heartbeat's interval and limit, 4 s), and the second instance reads the check.
            let silent = try await keptThenRevokedUntold("silent")
            let stopped = try await pair.listeners("pid").map { try $0.decode(Int32.self) }
            #expect(stopped.count == 2)
            for pid in stopped { #expect(kill(pid, SIGSTOP) == 0) }
            let started = clock.now
            let refused = try await PostgresInstances.eventually(TestTiming.patience) {
                try await !Self.good(second.checks.check(silent.hash, .account))
            }
            let noticed = clock.now - started
            for pid in stopped { kill(pid, SIGCONT) }
            #expect(refused, "still answered from memory after \(noticed)")
            print("a silent listener given up after \(noticed)")
            if TestTiming.bounded { #expect(noticed < .milliseconds(4_500), "refused after \(noticed)") }

            // Listening again on new connections, and keeping checks again; then the connections are ended: the
            // check is read at once.
            #expect(try await pair.bothListening())
            let ended = try await PostgresInstances.eventually(TestTiming.patience) {
                let token = try await keptThenRevokedUntold("ended-\(UUID().uuidString.prefix(8))")
                return Self.good(try await second.checks.check(token.hash, .account))
            }
            #expect(ended, "kept again once listening")
            let token = try await keptThenRevokedUntold("ended")
            #expect(try await pair.listeners("pg_terminate_backend(pid)").count == 2)
            let ending = clock.now
            #expect(
                try await PostgresInstances.eventually(TestTiming.patience) {
                    try await !Self.good(second.checks.check(token.hash, .account))
                })
            let read = clock.now - ending
            print("an ended listener's instance read the check after \(read)")
            if TestTiming.bounded { #expect(read < .milliseconds(200), "read after \(read), not at once") }
        }
    }
}
