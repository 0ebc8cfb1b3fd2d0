import CaptureCore
import CaptureStorage
import CaptureTestSupport
import Foundation
import Testing

/// The token repository's contract on both backends: fingerprints, the token check's read, revocation, redemption.
extension RepositoryConformanceTests {
    // MARK: tokens

    /// A token minted before time-led keys (43 characters, stored under its SHA-256 alone) and one minted since are
    /// found by the same kind of fingerprint: the first 12 digits of the token's SHA-256, never its mint time.
    @Test(arguments: TestBackend.allCases)
    func fingerprintsFindPlainAndTimeLedKeysAlike(_ backend: TestBackend) async throws {
        let repositories = try await TestStorage.open(backend).repositories
        let user = Self.user("fingerprints@example.com")
        try await repositories.users.insert(user)
        let minter = TokenMinter(random: SystemRandom())
        let older = minter.mint(), newer = minter.mintToken(at: Self.now)
        try await repositories.tokens.insert([
            Self.token(.access, older, user: user.id), Self.token(.refresh, newer, user: user.id),
        ])

        for (token, kind) in [(older, TokenKind.access), (newer, .refresh)] {
            let fingerprint = String(TokenMinter.hash(token).prefix(12))
            #expect(try await repositories.tokens.find(fingerprint: fingerprint).map(\.kind) == [kind])
            #expect(try await repositories.tokens.find(hash: TokenMinter.key(token))?.fingerprint == fingerprint)
        }
        let mintTime = String(TokenMinter.key(newer).prefix(12))
        #expect(try await repositories.tokens.find(fingerprint: mintTime).isEmpty)
    }

    @Test(arguments: TestBackend.allCases)
    func aTokenCheckReadsTokenUserLinksAndClientsVersionTogether(_ backend: TestBackend) async throws {
        let repositories = try await TestStorage.open(backend).repositories
        let user = Self.user("lookup@example.com")
        try await repositories.users.insert(
            user, linking: LinkedIdentity(provider: "oidc", subject: "s9", userID: user.id, email: "x@y", linkedAt: Self.now))
        try await repositories.tokens.insert([Self.token(.access, "secret", user: user.id)])
        let before = try await repositories.clients.version()
        try await repositories.clients.insert(Client(clientID: "app", name: "App", createdAt: Self.now))

        let entity = try #require(try await repositories.checks.check(TokenMinter.hash("secret"), .record))
        let lookup = entity
        #expect(lookup.record.hash == TokenMinter.hash("secret") && lookup.record.id != nil)
        // For /entity the stored profile comes as its text, not parsed.
        #expect(lookup.user?.email == "lookup@example.com" && lookup.user?.profile == [:])
        #expect(entity.storedProfile.flatMap(StoredJSON.object) == user.profile && !user.profile.isEmpty)
        #expect(entity.profiles.map(\.subject) == ["s9"])
        #expect(lookup.clientsVersion != before)
        let plain = try #require(try await repositories.checks.check(TokenMinter.hash("secret"), .user))
        #expect(plain.record == lookup.record && plain.user?.profile == user.profile)
        #expect(try await repositories.checks.check("unknown", .record) == nil)
        #expect(try await repositories.checks.check("unknown", .user) == nil)
        // The account alone, for introspection and /verify: the same token and version, no profile read.
        let account = try #require(try await repositories.checks.check(TokenMinter.hash("secret"), .account))
        #expect(account.record == lookup.record && account.clientsVersion == lookup.clientsVersion)
        #expect(
            account.account == AccountSummary(id: user.id, email: "lookup@example.com", emailVerified: false, disabledAt: nil))
        var disabled = user
        disabled.disabledAt = Self.now
        disabled.emailVerifiedAt = Self.now
        try await repositories.users.update(disabled)
        let changed = try await repositories.checks.check(TokenMinter.hash("secret"), .account)?.account
        #expect(changed?.disabledAt == Self.now && changed?.emailVerified == true)
        #expect(try await repositories.checks.check("unknown", .account) == nil)
        let fingerprint = String(TokenMinter.hash("secret").prefix(12))
        #expect(try await repositories.tokens.find(fingerprint: fingerprint).count == 1)
        #expect(try await repositories.tokens.find(fingerprint: "0123456789abcdef").isEmpty)
    }

    @Test(arguments: TestBackend.allCases)
    func revocationsCountWhatTheyNewlyRevokeAndListingsFilterByState(_ backend: TestBackend) async throws {
        let repositories = try await TestStorage.open(backend).repositories
        let user = try await repositories.users.insert(Self.user("revoke@example.com"))
        let tokens = repositories.tokens
        try await tokens.insert([
            Self.token(.access, "a1", user: user.id, chain: "c1"), Self.token(.refresh, "r1", user: user.id, chain: "c1"),
            Self.token(.access, "a2", user: user.id, chain: "c2"), Self.token(.device, "d1", user: user.id, chain: "c3"),
            Self.token(.access, "old", user: user.id, chain: "c4", expires: -10),
        ])
        #expect(try await tokens.list(TokenFilter(userID: user.id, state: .expired, now: Self.now)).count == 1)
        #expect(try await tokens.list(TokenFilter(userID: user.id, state: .active, now: Self.now)).count == 4)
        #expect(try await tokens.list(TokenFilter(kind: .refresh, now: Self.now)).map(\.hash) == [TokenMinter.hash("r1")])

        let others = try await tokens.revokeAll(userID: user.id, exceptChain: "c1", at: Self.now)
        #expect(others == RevokedTokens([.access: 2]), "devices and the kept chain stay")
        #expect(try await tokens.revokeChain("c1", of: "someone else", at: Self.now).count == 0, "a chain is its user's")
        #expect(try await tokens.revokeChain("c1", of: user.id, at: Self.now) == RevokedTokens([.access: 1, .refresh: 1]))
        #expect(try await tokens.revokeChain("c1", of: user.id, at: Self.now).count == 0)
        #expect(try await tokens.list(TokenFilter(state: .revoked, now: Self.now)).count == 4)
        #expect(try await tokens.revokeAll(clientID: "app", at: Self.now) == RevokedTokens([.device: 1]))
        #expect(try await tokens.purge(expiredBefore: Self.now, accessIssuedBefore: Self.now + 1) == 1)
    }

    @Test(arguments: TestBackend.allCases)
    func aRefreshTokenRacedFromTwoStoresRedeemsOnceThenRevokesItsChain(_ backend: TestBackend) async throws {
        let (a, b) = try await Self.twoStores(backend)
        let user = try await a.repositories.users.insert(Self.user("race@example.com"))
        try await a.repositories.tokens.insert([Self.token(.refresh, "presented", user: user.id, chain: "race")])
        let outcomes = try await withThrowingTaskGroup(of: Redemption.self) { group in
            for index in 0..<16 {
                let tokens = (index % 2 == 0 ? a : b).repositories.tokens
                group.addTask {
                    try await tokens.redeem(
                        hash: TokenMinter.hash("presented"), kind: .refresh, now: Self.now, client: "app",
                        allowExpired: false
                    ) { old in [Self.token(.refresh, "next \(index)", user: old.userID, chain: old.chainID)] }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let redeemed = outcomes.filter { if case .redeemed = $0 { true } else { false } }
        #expect(redeemed.count == 1, "\(outcomes)")
        // The first one after the winner finds the token used and revokes the chain (it and its replacement); the
        // rest find nothing left to revoke.
        #expect(
            outcomes.contains { if case .reused(let revoked) = $0 { revoked == RevokedTokens([.refresh: 2]) } else { false } })
        let chain = try await b.repositories.tokens.list(TokenFilter(userID: user.id, now: Self.now))
        #expect(chain.count == 2 && chain.allSatisfy { $0.revokedAt != nil })
        #expect(chain.filter { $0.usedAt != nil }.map(\.hash) == [TokenMinter.hash("presented")])
    }

    @Test(arguments: TestBackend.allCases)
    func redemptionFollowsTheRuleForKindClientAndExpiry(_ backend: TestBackend) async throws {
        let tokens = try await TestStorage.open(backend).repositories
        let user = try await tokens.users.insert(Self.user("rule@example.com"))
        try await tokens.tokens.insert([
            Self.token(.refresh, "live", user: user.id), Self.token(.access, "expired", user: user.id, expires: -1),
        ])
        func redeem(
            _ secret: String, _ kind: TokenKind, client: String = "app", allowExpired: Bool = false
        ) async throws -> Redemption {
            try await tokens.tokens.redeem(
                hash: TokenMinter.hash(secret), kind: kind, now: Self.now, client: client, allowExpired: allowExpired
            ) { _ in [] }
        }
        #expect(try await redeem("live", .refresh, client: "other") == .notUsable)
        #expect(try await redeem("live", .access) == .notUsable)
        #expect(try await redeem("expired", .access) == .notUsable)
        guard case .redeemed(let old) = try await redeem("expired", .access, allowExpired: true) else {
            Issue.record("an expired access token is redeemable when allowed")
            return
        }
        #expect(old.usedAt == Self.now)
        #expect(try await tokens.tokens.find(hash: TokenMinter.hash("expired"))?.usedAt == Self.now)
        #expect(try await redeem("unknown", .refresh) == .notUsable)
    }

    /// A deactivated account's refresh token redeems nothing: its chain is revoked in the same transaction.
    @Test(arguments: TestBackend.allCases)
    func aDeactivatedAccountsTokenRevokesItsChainAndIssuesNothing(_ backend: TestBackend) async throws {
        let store = try await TestStorage.open(backend).repositories
        var user = try await store.users.insert(Self.user("off@example.com"))
        try await store.tokens.insert([
            Self.token(.refresh, "off-refresh", user: user.id, chain: "c1"),
            Self.token(.access, "off-access", user: user.id, chain: "c1"),
            Self.token(.refresh, "other-session", user: user.id, chain: "c2"),
        ])
        user.disabledAt = Self.now
        try await store.users.update(user)
        let next = Self.token(.refresh, "never-stored", user: user.id, chain: "c1")
        let outcome = try await store.tokens.redeem(
            hash: TokenMinter.hash("off-refresh"), kind: .refresh, now: Self.now, client: "app", allowExpired: false
        ) { _ in [next] }
        #expect(outcome == .accountDisabled(RevokedTokens([.refresh: 1, .access: 1])))
        #expect(try await store.tokens.find(hash: next.hash) == nil)
        #expect(try await store.tokens.find(hash: TokenMinter.hash("off-refresh"))?.usedAt == nil)
        #expect(try await store.tokens.find(hash: TokenMinter.hash("off-access"))?.revokedAt == Self.now)
        // Only the presented chain: the account's other sessions are the deactivation's business.
        #expect(try await store.tokens.find(hash: TokenMinter.hash("other-session"))?.revokedAt == nil)
    }
}
