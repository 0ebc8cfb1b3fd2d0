import CaptureCore
import Foundation
import GRDB
import Testing

@testable import CaptureCache
@testable import CaptureStore

/// Token checks kept in memory (`TokenCheckCache`) and the stamps that retire them (`ChangeStamps`, written by
/// `ChangeRecorder` on every writing connection of every process).
@Suite struct TokenCheckCacheTests {
    static func temporaryDatabase(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString).sqlite").path
    }

    static func remove(_ path: String) {
        for suffix in ["", "-wal", "-shm", "-changes"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    @Test func aStampWrittenThroughOneMappingIsReadThroughAnother() async throws {
        let path = Self.temporaryDatabase("stamps")
        defer { Self.remove(path) }
        let writer = try ChangeStamps(path: path + "-changes")
        let reader = try ChangeStamps(path: path + "-changes")
        #expect(reader.generation == 0 && reader.stamp(of: .token(rowID: 7)) == 0)
        writer.changed([.token(rowID: 7), .user(rowID: 9)])
        #expect(reader.generation == 1)
        #expect(reader.stamp(of: .token(rowID: 7)) == 1 && reader.stamp(of: .user(rowID: 9)) == 1)
        #expect(reader.stamp(of: .token(rowID: 9)) == 0 && reader.stamp(of: .user(rowID: 7)) == 0)
        #expect(reader.stamp(of: .everything) == 0)
        reader.changed([.everything])
        #expect(writer.generation == 2 && writer.stamp(of: .everything) == 2)

        // Many writers stamping one row at once: the stamp ends at the newest generation, never an older one.
        await withTaskGroup(of: Void.self) { group in
            for stamps in [writer, reader, writer, reader] {
                group.addTask { for _ in 0..<500 { stamps.changed([.token(rowID: 7)]) } }
            }
        }
        #expect(reader.generation == 2002 && writer.stamp(of: .token(rowID: 7)) == 2002)
    }

    /// Rows spread over the stamps as at random (100k rows over 262,143 stamps: about 83k distinct).
    @Test func neighbouringRowsHaveStampsOfTheirOwn() {
        let slots = Set((1...100_000).map { ChangeStamps.slot(of: .token(rowID: Int64($0))) })
        #expect(slots.count > 80_000 && !slots.contains(0))
        #expect(ChangeStamps.slot(of: .token(rowID: 1)) != ChangeStamps.slot(of: .user(rowID: 1)))
        #expect(ChangeStamps.slot(of: .everything) == 0)
    }

    @Test func identifiersInUUIDFormAreKeptAsTheirBytes() {
        for _ in 0..<200 {
            let id = UUID().uuidString.lowercased()
            let compact = TokenCheckCache.CompactID(id)
            guard case .uuid = compact else { Issue.record("\(id) kept as text"); continue }
            #expect(compact.text == id)
        }
        for text in [UUID().uuidString, "u-1", "", "0123456789abcdef0123456789abcdef", "g0000000-0000-4000-8000-000000000000"] {
            let compact = TokenCheckCache.CompactID(text)
            guard case .text = compact else { Issue.record("\(text) taken for a UUID"); continue }
            #expect(compact.text == text)
        }
    }

    /// A store on a file, with an active access token of an active account, and the cache it reads through.
    struct Fixture {
        let path: String
        let pool: DatabasePool
        let repositories: Repositories
        let checks: TokenCheckCache
        let user: User
        let key: String

        init(_ name: String, kind: TokenKind = .access) async throws {
            path = TokenCheckCacheTests.temporaryDatabase(name)
            pool = try CaptureDatabase.open(path: path)
            repositories = CaptureDatabase.repositories(pool)
            checks = try #require((repositories.checks as? CachedTokenChecks<SQLiteTokenChecks>)?.cache)
            user = try await repositories.users.insert(
                User(id: UUID().uuidString.lowercased(), email: "\(name)@example.com", passwordHash: nil, createdAt: Date()))
            key = TokenMinter.key(TokenMinter(random: SystemRandom()).mintToken(at: Date()))
            try await repositories.tokens.insert([
                TokenRecord(
                    kind: kind, hash: key, userID: user.id, clientID: "app", chainID: UUID().uuidString.lowercased(),
                    scope: "openid", authProvider: "capture", issuedAt: Date(), expiresAt: Date() + 3600)
            ])
        }

        func close() throws {
            try pool.close()
            TokenCheckCacheTests.remove(path)
        }
    }

    @Test func aCheckIsKeptAsItWasReadAndAnsweredFromMemory() async throws {
        let fixture = try await Fixture("kept")
        defer { try? fixture.close() }
        let read = try #require(try await fixture.repositories.checks.check(fixture.key, .account))
        #expect(fixture.checks.count == 1)
        let kept = try #require(try await fixture.repositories.checks.check(fixture.key, .account))
        #expect(kept.record == read.record && kept.account == read.account && kept.clientsVersion == read.clientsVersion)

        // Software other than capture-bridge (no stamps) changing the file is not seen: the kept check answers.
        let foreign = try DatabaseQueue(path: fixture.path)
        try await foreign.write { db in try db.execute(sql: "UPDATE tokens SET scope = 'changed behind its back'") }
        try foreign.close()
        #expect(try await fixture.repositories.checks.check(fixture.key, .account)?.record.scope == "openid")
    }

    /// Each change through another store on the same file (as capturectl or another instance makes it) retires the
    /// kept check: the next lookup reads the database.
    @Test func aChangeToTheTokenItsUserOrAnyClientIsSeenOnTheNextLookup() async throws {
        let fixture = try await Fixture("retired")
        defer { try? fixture.close() }
        let tokens = fixture.repositories.checks
        let otherPool = try CaptureDatabase.open(path: fixture.path)
        defer { try? otherPool.close() }
        let other = CaptureDatabase.repositories(otherPool)

        _ = try await tokens.check(fixture.key, .account)
        var user = fixture.user
        user.email = "renamed@example.com"
        try await other.users.update(user)
        #expect(try await tokens.check(fixture.key, .account)?.account?.email == "renamed@example.com")

        _ = try await tokens.check(fixture.key, .account)
        user.disabledAt = Date()
        try await other.users.update(user)
        #expect(try await tokens.check(fixture.key, .account)?.account?.isDisabled == true)
        #expect(fixture.checks.count == 0, "a disabled account's check is not kept")
        user.disabledAt = nil
        try await other.users.update(user)

        let version = try #require(try await tokens.check(fixture.key, .account)).clientsVersion
        try await other.clients.upsert(Client(clientID: "another", name: "another", createdAt: Date()))
        #expect(try await tokens.check(fixture.key, .account)?.clientsVersion == version + 1)

        _ = try await tokens.check(fixture.key, .account)
        _ = try await other.tokens.revokeAll(userID: fixture.user.id, at: Date())
        let revoked = try #require(try await tokens.check(fixture.key, .account))
        #expect(revoked.record.state(at: Date()) == .revoked)
        #expect(fixture.checks.count == 0, "a revoked token's check is not kept")
    }

    /// A profile edit or a sign-in's `lastLoginAt` changes nothing a check keeps: nothing is stamped and the account's
    /// checks stay; the same edit with a new address is stamped.
    @Test func aProfileEditLeavesTheAccountsChecksInPlace() async throws {
        let fixture = try await Fixture("profile")
        defer { try? fixture.close() }
        let stamps = try ChangeStamps.forDatabase(at: fixture.path)
        let tokens = fixture.repositories.checks
        _ = try await tokens.check(fixture.key, .account)
        let generation = stamps.generation
        let otherPool = try CaptureDatabase.open(path: fixture.path)
        defer { try? otherPool.close() }
        let other = CaptureDatabase.repositories(otherPool)

        var user = try #require(try await other.users.find(id: fixture.user.id))
        user.profile["displayName"] = .string("Zoë")
        user.lastLoginAt = Date()
        user.updatedAt = Date()
        try await other.users.update(user)
        #expect(stamps.generation == generation, "nothing stamped")
        #expect(try await other.users.find(id: user.id)?.profile["displayName"] == .string("Zoë"), "the edit is stored")
        #expect(fixture.checks.count == 1)
        #expect(try await tokens.check(fixture.key, .account)?.account?.email == "profile@example.com")

        user.email = "moved@example.com"
        try await other.users.update(user)
        #expect(stamps.generation > generation)
        #expect(try await tokens.check(fixture.key, .account)?.account?.email == "moved@example.com")
        #expect(try await other.users.find(id: user.id)?.email == "moved@example.com")
    }

    /// `/entity`'s read keeps the token's check like the others, and with it kept reads only the user's row: the
    /// record is always the stored one, and a revocation anywhere is seen on the next read.
    @Test func theEntityReadKeepsTheTokensCheckAndReadsItsUserEachTime() async throws {
        let fixture = try await Fixture("entity")
        defer { try? fixture.close() }
        let tokens = fixture.repositories.checks
        let read = try #require(try await tokens.check(fixture.key, .record))
        #expect(read.user?.email == "entity@example.com" && read.profiles.isEmpty)
        #expect(fixture.checks.count == 1)

        // Behind the stamps' back: the token's row is not read again (its scope stays as kept), the user's row is.
        let foreign = try DatabaseQueue(path: fixture.path)
        try await foreign.write { db in
            try db.execute(sql: "UPDATE tokens SET scope = 'changed behind its back'")
            try db.execute(sql: "UPDATE users SET email = 'read@example.com'")
        }
        try foreign.close()
        let kept = try #require(try await tokens.check(fixture.key, .record))
        #expect(kept.record == read.record && kept.record.scope == "openid")
        #expect(kept.user?.email == "read@example.com")
        #expect(try await tokens.check(fixture.key, .user)?.user?.email == "read@example.com")

        // Linked accounts are listed only when asked for and there are any (the read then takes a transaction):
        // one linked from another process is on the very next read.
        let linking = try CaptureDatabase.open(path: fixture.path)
        try await CaptureDatabase.repositories(linking).identities.link(
            LinkedIdentity(provider: "oidc", subject: "s1", userID: fixture.user.id, email: nil, linkedAt: Date()))
        try linking.close()
        let linked = try #require(try await tokens.check(fixture.key, .record))
        #expect(linked.profiles.map(\.subject) == ["s1"] && linked.user?.email == "read@example.com")
        #expect(try await tokens.check(fixture.key, .user)?.record == linked.record)
        #expect(fixture.checks.count == 1, "still answered from the kept check")

        let otherPool = try CaptureDatabase.open(path: fixture.path)
        defer { try? otherPool.close() }
        _ = try await CaptureDatabase.repositories(otherPool).tokens.revokeAll(userID: fixture.user.id, at: Date())
        let revoked = try #require(try await tokens.check(fixture.key, .record))
        #expect(revoked.record.state(at: Date()) == .revoked && revoked.record.scope == "changed behind its back")
        #expect(fixture.checks.count == 0)
    }

    @Test func onlyActiveAccessTokensOfActiveAccountsAreKept() async throws {
        let refresh = try await Fixture("refresh", kind: .refresh)
        defer { try? refresh.close() }
        #expect(try await refresh.repositories.checks.check(refresh.key, .account)?.record.kind == .refresh)
        #expect(refresh.checks.count == 0)
        #expect(
            try await refresh.repositories.checks.check(
                TokenMinter.key(TokenMinter(random: SystemRandom()).mintToken(at: Date())), .account) == nil)
        #expect(refresh.checks.count == 0)
    }

    /// A transaction that changes more rows than are worth stamping one by one (a purge) stamps everything.
    @Test func aLargeChangeRetiresEveryKeptCheck() async throws {
        let fixture = try await Fixture("purged")
        defer { try? fixture.close() }
        let stamps = try ChangeStamps.forDatabase(at: fixture.path)
        _ = try await fixture.repositories.checks.check(fixture.key, .account)
        let before = stamps.stamp(of: .everything)
        try await fixture.pool.write { db in
            for index in 0...ChangeRecorder.rowLimit {
                try db.execute(
                    sql: """
                        INSERT INTO tokens (kind, hash, userID, clientID, chainID, scope, authProvider, issuedAt, expiresAt)
                        VALUES ('access', ?, ?, 'app', 'c', '', 'capture', ?, ?)
                        """, arguments: ["bulk-\(index)", fixture.user.id, Date(), Date()])
            }
        }
        #expect(stamps.stamp(of: .everything) == before, "inserts are not stamped")
        try await fixture.pool.write { db in try db.execute(sql: "DELETE FROM tokens WHERE hash LIKE 'bulk-%'") }
        #expect(stamps.stamp(of: .everything) > before)
        #expect(try await fixture.repositories.checks.check(fixture.key, .account) != nil)
    }

    @Test func theCacheHoldsAtMostItsCapacity() async throws {
        let table = try await Table("bounded", capacity: 16)
        defer { try? table.fixture.close() }
        for _ in 0..<100 {
            let key = TokenMinter.key(TokenMinter(random: SystemRandom()).mintToken(at: Date()))
            let record = table.keep(key)
            #expect(table.checks.count <= 16)
            #expect(table.checks.lookup(key: key)?.record == record)
        }
    }
}

extension TokenCheckCacheTests {
    /// A full table makes room one slot at a time, at random: a check that went stale frees its slot for the next, and
    /// what stays is found and answers as kept.
    @Test func aFullCacheGivesWaySlotBySlotAndReusesFreedSlots() async throws {
        let table = try await Table("slots", capacity: 64)
        defer { try? table.fixture.close() }
        let (checks, stamps) = (table.checks, table.stamps)
        let minter = TokenMinter(random: SystemRandom())
        func keep(_ key: String, row: Int64) { table.keep(key, row: row) }
        let keys = (0..<200).map { _ in TokenMinter.key(minter.mintToken(at: Date())) }
        for (row, key) in keys.prefix(64).enumerated() { keep(key, row: Int64(row + 1_000)) }
        #expect(checks.count == 64)
        #expect(keys.prefix(64).allSatisfy { checks.lookup(key: $0) != nil })
        // One more: exactly one of the 64 gives way.
        keep(keys[64], row: 2_000)
        #expect(checks.count == 64)
        #expect(keys.prefix(65).filter { checks.lookup(key: $0) != nil }.count == 64)
        #expect(checks.lookup(key: keys[64])?.record.id == 2_000)
        // A changed token's check goes at its next lookup; its slot takes the next check, and nothing else gives way.
        let kept = keys.prefix(64).filter { checks.lookup(key: $0) != nil }
        let stale = try #require(kept.first)
        let staleRow = try #require(checks.lookup(key: stale)?.record.id)
        stamps.changed([.token(rowID: staleRow)])
        #expect(checks.lookup(key: stale) == nil)
        #expect(checks.count == 63)
        keep(keys[65], row: 2_001)
        #expect(checks.count == 64)
        #expect(kept.count == 63 && kept.dropFirst().allSatisfy { checks.lookup(key: $0) != nil })
        // Many more than fit: never more than the capacity, and the last one kept is always found.
        for (offset, key) in keys.dropFirst(66).enumerated() {
            keep(key, row: Int64(3_000 + offset))
            #expect(checks.count <= 64)
            #expect(checks.lookup(key: key)?.record.id == Int64(3_000 + offset))
        }
    }
}

extension TokenCheckCacheTests {
    /// A cache of its own with `capacity` checks, beside a fixture whose token's check it keeps under other keys.
    struct Table {
        let fixture: Fixture
        let stamps: ChangeStamps
        let checks: TokenCheckCache
        let lookup: TokenCheck

        init(_ name: String, capacity: Int) async throws {
            fixture = try await Fixture(name)
            stamps = try ChangeStamps.forDatabase(at: fixture.path)
            checks = TokenCheckCache(stamps: stamps, capacity: capacity)
            lookup = try #require(try await fixture.repositories.checks.check(fixture.key, .account))
        }

        /// Keeps the fixture's token's check as the check of `key` (with the row id `row`, if given); returns the
        /// record kept.
        @discardableResult func keep(_ key: String, row: Int64? = nil) -> TokenRecord {
            var record = lookup.record
            record.hash = key
            if let row { record.id = row }
            checks.keep(
                TokenCheck(record: record, account: lookup.account, clientsVersion: 0), key: key, userRow: 1,
                generation: stamps.generation)
            return record
        }
    }
}
