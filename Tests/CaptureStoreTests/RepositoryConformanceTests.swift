import CaptureCore
import CaptureStorage
import CaptureTestSupport
import Foundation
import Testing

/// What every storage backend must do, run against each: SQLite and a real PostgreSQL server (the test command
/// starts one; without `CAPTURE_TEST_POSTGRES` the PostgreSQL cases fail, saying so). Races run through two stores
/// opened on the same database, as two instances, or a capturectl beside the service, would.
@Suite struct RepositoryConformanceTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func user(_ email: String, id: String = UUID().uuidString) -> User {
        var user = User(id: id, email: email, passwordHash: "$2b$10$hash", createdAt: now)
        user.profile = ["displayName": .string("Name of \(email)")]
        return user
    }

    static func token(
        _ kind: TokenKind, _ secret: String, user: String, chain: String = "chain", client: String = "app",
        expires: TimeInterval = 3600
    ) -> TokenRecord {
        TokenRecord(
            kind: kind, hash: TokenMinter.key(secret), userID: user, clientID: client, chainID: chain,
            issuedAt: now, expiresAt: now + expires)
    }

    /// Two stores on one new database.
    static func twoStores(_ backend: TestBackend) async throws -> (OpenedStorage, OpenedStorage) {
        let location = try await TestStorage.newLocation(backend)
        return (try await OpenedStorage.open(location), try await OpenedStorage.open(location))
    }

    // MARK: users

    @Test(arguments: TestBackend.allCases)
    func usersGetNumbersInOrderAndAddressesStayUnique(_ backend: TestBackend) async throws {
        let users = try await TestStorage.open(backend).repositories.users
        let first = try await users.insert(Self.user("one@example.com"))
        var later = Self.user("two@example.com")
        later.createdAt = Self.now + 1
        let second = try await users.insert(later)
        #expect(first.number == 1 && second.number == 2)
        await #expect(throws: CaptureError.emailAddressInUse(field: "email")) {
            try await users.insert(Self.user("ONE@example.com"))
        }
        #expect(try await users.find(email: "One@Example.com")?.id == first.id)
        let found = try #require(try await users.find(id: second.id))
        #expect(found == second)

        var changed = found
        changed.profile["displayName"] = .string("Renamed 100%_")
        changed.lastLoginAt = Self.now + 60
        try await users.update(changed)
        #expect(try await users.find(id: second.id) == changed)
        // The search's own wildcards are literal.
        #expect(try await users.list(search: "100%_", page: Page()).map(\.id) == [second.id])
        #expect(try await users.list(search: "0%x", page: Page()).isEmpty)
        #expect(try await users.list(search: nil, page: Page(limit: 1, offset: 1)).map(\.id) == [second.id])

        // What an import's newer copy may bring: another creation time and number are written too (SQLite leaves
        // indexed columns out of an update only while they are equal).
        var recreated = changed
        recreated.createdAt = Self.now - 3600
        recreated.number = 40
        try await users.update(recreated)
        #expect(try await users.find(id: second.id) == recreated)
        #expect(try await users.find(id: first.id) == first)
    }

    @Test(arguments: TestBackend.allCases)
    func concurrentRegistrationsFromTwoStoresGetDistinctNumbers(_ backend: TestBackend) async throws {
        let (a, b) = try await Self.twoStores(backend)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<20 {
                let users = (index % 2 == 0 ? a : b).repositories.users
                group.addTask { try await users.insert(Self.user("racer\(index)@example.com")) }
            }
            try await group.waitForAll()
        }
        let numbers = try await a.repositories.users.list(search: nil, page: Page()).compactMap(\.number)
        #expect(numbers.sorted() == Array(1...20))
    }

    @Test(arguments: TestBackend.allCases)
    func deletingAUserTakesItsTokensAndLinks(_ backend: TestBackend) async throws {
        let repositories = try await TestStorage.open(backend).repositories
        let user = Self.user("gone@example.com")
        try await repositories.users.insert(
            user, linking: LinkedIdentity(provider: "oidc", subject: "s1", userID: user.id, email: nil, linkedAt: Self.now))
        #expect(try await repositories.identities.list(userID: user.id).map(\.subject) == ["s1"])
        try await repositories.tokens.insert([Self.token(.access, "a", user: user.id)])
        #expect(try await repositories.users.delete(id: user.id))
        #expect(try await repositories.tokens.find(hash: TokenMinter.hash("a")) == nil)
        #expect(try await repositories.identities.find(provider: "oidc", subject: "s1") == nil)
        #expect(try await !repositories.users.delete(id: user.id))
    }

    @Test(arguments: TestBackend.allCases)
    func aUniqueValueGoesWithItsRecordsProfile(_ backend: TestBackend) async throws {
        let users = try await TestStorage.open(backend).repositories.users
        let schema = UserImportStorageTests.schema  // the shipped schema and a unique `nickname`
        func named(_ user: User, _ nickname: String) throws -> User {
            var document = user.document(schema: schema, asUser: false)
            try document.update(at: EntityPath(parsing: "nickname"), with: .string(nickname))
            var named = user
            named.apply(document)
            return named
        }
        let first = try await users.insert(try named(Self.user("first@example.com"), "Ace"))
        let second = try await users.insert(try named(Self.user("second@example.com"), "Bee"))
        #expect(try await users.find(unique: "nickname", text: "ace")?.id == first.id)
        // Another record's value is refused, and the refused write leaves the record and the claims as they were.
        let taken = CaptureError.schemaViolation(SchemaViolation(.unique, "nickname", "this nickname is already taken"))
        await #expect(throws: taken) { try await users.update(try named(second, "ACE")) }
        #expect(try await users.find(id: second.id)?.profile["nickname"] == .string("Bee"))
        #expect(try await users.find(unique: "nickname", text: "bee")?.id == second.id)
        // A changed value lets go of the old one, which another record may then take.
        try await users.update(try named(first, "Cat"))
        #expect(try await users.find(unique: "nickname", text: "ace") == nil)
        try await users.update(try named(second, "Ace"))
        #expect(try await users.find(unique: "nickname", text: "ace")?.id == second.id)
        #expect(try await users.find(unique: "nickname", text: "bee") == nil)
        #expect(try await users.find(unique: "nickname", text: "cat")?.id == first.id)
    }

    @Test(arguments: TestBackend.allCases)
    func anImportNamesEachConflictAndRenumbersTakenNumbers(_ backend: TestBackend) async throws {
        let users = try await TestStorage.open(backend).repositories.users
        let existing = try await users.insert(Self.user("existing@example.com", id: "fixed-id"))
        var numbered = Self.user("numbered@example.com")
        numbered.number = existing.number
        var free = Self.user("free@example.com")
        free.number = 40
        let outcomes = try await users.importBatch([
            Self.user("other@example.com", id: "fixed-id"), Self.user("EXISTING@example.com"), numbered, free,
        ])
        #expect(outcomes[0] == .failure(.id))
        #expect(outcomes[1] == .failure(.email))
        // The taken number goes to the end, past the largest the batch brought.
        #expect(try outcomes[2].get().number == 41)
        #expect(try outcomes[3].get().number == 40)
        #expect(try await users.find(email: "numbered@example.com")?.number == 41)
    }

    // MARK: clients

    @Test(arguments: TestBackend.allCases)
    func clientChangesFromAnotherStoreMoveTheVersion(_ backend: TestBackend) async throws {
        let (service, cli) = try await Self.twoStores(backend)
        var client = Client(
            clientID: "web", name: "Web", secretHash: "h", redirectURIs: ["https://a.example/cb"],
            allowedOrigins: ["https://a.example"], responseTypes: [.token, .code], accessTokenLifeHours: 2,
            createdAt: Self.now)
        client.requireVerifiedEmail = true
        let v0 = try await service.repositories.clients.version()
        try await cli.repositories.clients.insert(client)
        await #expect(throws: CaptureError.notPermitted("client 'web' already exists")) {
            try await service.repositories.clients.insert(client)
        }
        let v1 = try await service.repositories.clients.version()
        #expect(v1 != v0)
        #expect(try await service.repositories.clients.find(id: "web") == client)
        client.redirectURIs = []
        try await cli.repositories.clients.upsert(client)
        #expect(try await service.repositories.clients.version() != v1)
        #expect(try await service.repositories.clients.list() == [client])
        #expect(try await cli.repositories.clients.delete(id: "web"))
        #expect(try await service.repositories.clients.find(id: "web") == nil)
    }

    // MARK: limits, codes, mail

    @Test(arguments: TestBackend.allCases)
    func throttleUpdatesFromTwoStoresAreEachCounted(_ backend: TestBackend) async throws {
        let (a, b) = try await Self.twoStores(backend)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<24 {
                let throttle = (index % 2 == 0 ? a : b).repositories.throttle
                group.addTask {
                    try await throttle.update(["k1", "k2"], now: Self.now) { states in
                        let changes = ["k1", "k2"].reduce(into: [String: ThrottleState?]()) { changes, key in
                            changes[key] = ThrottleState(
                                level: (states[key]?.level ?? 0) + 1, updatedAt: Self.now, expiresAt: Self.now + 60)
                        }
                        return (changes, ())
                    }
                }
            }
            try await group.waitForAll()
        }
        let levels = try await a.repositories.throttle.update(["k1", "k2"], now: Self.now) { states in
            ([:], [states["k1"]?.level, states["k2"]?.level])
        }
        #expect(levels == [24, 24])
        #expect(try await b.repositories.throttle.purge(expiredBefore: Self.now + 61) == 2)
    }

    @Test(arguments: TestBackend.allCases)
    func codeEntriesFromTwoStoresAreEachCountedAndAMessageCarriesItsCode(_ backend: TestBackend) async throws {
        let (a, b) = try await Self.twoStores(backend)
        let user = try await a.repositories.users.insert(Self.user("code@example.com"))
        let entry = OutboxEntry(
            messageID: "<m1@example>", kind: .passwordReset, recipient: user.email, userID: user.id, subject: "Reset",
            text: "code 1234", html: nil, status: .pending, createdAt: Self.now, bodyExpiresAt: Self.now + 600)
        let code = OneTimeCode(
            purpose: .passwordReset, userID: user.id, hash: "h1", createdAt: Self.now, expiresAt: Self.now + 600)
        let stored = try await a.repositories.outbox.record(entry, issuing: code)
        #expect(stored.id != nil)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<10 {
                let codes = (index % 2 == 0 ? a : b).repositories.codes
                group.addTask {
                    try await codes.use(userID: user.id, purpose: .passwordReset) { newest in
                        guard var newest else { return (nil, ()) }
                        newest.attempts += 1
                        return (newest, ())
                    }
                }
            }
            try await group.waitForAll()
        }
        let attempts = try await b.repositories.codes.use(userID: user.id, purpose: .passwordReset) { newest in
            (nil, newest?.attempts)
        }
        #expect(attempts == 10)

        let outbox = b.repositories.outbox
        #expect(try await outbox.pendingCount() == 1)
        var due = try #require(try await outbox.claimDue(at: Self.now, lease: Self.now + 300, limit: 10).first)
        #expect(due.messageID == stored.messageID && due.nextAttemptAt == Self.now + 300)
        #expect(try await outbox.claimDue(at: Self.now + 299, lease: Self.now + 600, limit: 10).isEmpty, "claimed")
        #expect(try await outbox.claimDue(at: Self.now + 300, lease: Self.now + 600, limit: 10).count == 1, "lease over")
        due.status = .sent
        due.sentAt = Self.now + 5
        try await outbox.update(due)
        #expect(try await outbox.forgetBodies(at: Self.now + 10) == 1)
        #expect(try await outbox.find(id: stored.id!)?.text == nil)
        try await outbox.scrub()
        #expect(try await outbox.list(limit: 5).map(\.status) == [.sent])
        #expect(try await a.repositories.codes.purge(expiredBefore: Self.now + 601) == 1)
    }

    @Test(arguments: TestBackend.allCases)
    func twoStoresClaimingTheOutboxNeverTakeTheSameMessage(_ backend: TestBackend) async throws {
        let (a, b) = try await Self.twoStores(backend)
        for index in 0..<12 {
            try await a.repositories.outbox.record(
                OutboxEntry(
                    messageID: "<m\(index)@example>", kind: .emailVerification, recipient: "r\(index)@example.com",
                    userID: nil, subject: "Verify", text: "body", html: nil, status: .pending, createdAt: Self.now,
                    bodyExpiresAt: Self.now + 600),
                issuing: nil)
        }
        let claimed = try await withThrowingTaskGroup(of: [String].self) { group in
            for worker in 0..<6 {
                let outbox = (worker % 2 == 0 ? a : b).repositories.outbox
                group.addTask {
                    var mine: [String] = []
                    while let entry = try await outbox.claimDue(at: Self.now, lease: Self.now + 300, limit: 1).first {
                        mine.append(entry.messageID)
                    }
                    return mine
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(claimed.count == 12 && Set(claimed).count == 12, "\(claimed.sorted())")
    }

    // MARK: social sign-in, audit, admin keys

    @Test(arguments: TestBackend.allCases)
    func aSocialStateIsSpentOnceAcrossStores(_ backend: TestBackend) async throws {
        let (a, b) = try await Self.twoStores(backend)
        var login = SocialLogin(
            stateHash: "state", provider: "oidc", clientID: "app", flow: "webViewSignIn", locale: "en-US",
            responseType: .token, returnURL: "https://a.example/", nonce: "n", codeVerifier: "v", createdAt: Self.now)
        login.claims = ["email": .string("s@example.com")]
        try await a.repositories.socialLogins.insert(login)
        let spent = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<8 {
                let logins = (index % 2 == 0 ? a : b).repositories.socialLogins
                group.addTask {
                    try await logins.use(stateHash: "state") { found in
                        guard var found, found.usedAt == nil else { return (nil, false) }
                        found.usedAt = Self.now
                        found.tokenHash = "token"
                        found.providerToken = "sealed"
                        return (found, true)
                    }
                }
            }
            return try await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
        }
        #expect(spent == 1)
        let read = try await b.repositories.socialLogins.use(tokenHash: "token") { found in
            (nil, (found?.claims, found?.providerToken))
        }
        #expect(read.0 == ["email": .string("s@example.com")] && read.1 == "sealed")
        #expect(try await a.repositories.socialLogins.purge(expiredBefore: Self.now + SocialLogin.lifetime + 1) == 1)
    }

    @Test(arguments: TestBackend.allCases)
    func aProviderAccountHasOneOwner(_ backend: TestBackend) async throws {
        let repositories = try await TestStorage.open(backend).repositories
        let owner = try await repositories.users.insert(Self.user("owner@example.com"))
        let other = try await repositories.users.insert(Self.user("other@example.com"))
        try await repositories.identities.link(
            LinkedIdentity(provider: "oidc", subject: "sub", userID: owner.id, email: nil, linkedAt: Self.now))
        await #expect(throws: CaptureError.notPermitted("this oidc account is linked to another user")) {
            try await repositories.identities.link(
                LinkedIdentity(provider: "oidc", subject: "sub", userID: other.id, email: nil, linkedAt: Self.now))
        }
        try await repositories.identities.touch(provider: "oidc", subject: "sub", at: Self.now + 9, providerToken: "t1")
        try await repositories.identities.touch(provider: "oidc", subject: "sub", at: Self.now + 9, providerToken: nil)
        let touched = try await repositories.identities.find(provider: "oidc", subject: "sub")
        #expect(touched?.lastUsedAt == Self.now + 9 && touched?.providerToken == "t1", "a sign-in without a token keeps it")
        #expect(try await !repositories.identities.unlink(provider: "oidc", subject: "sub", userID: other.id))
        #expect(try await repositories.identities.unlink(provider: "oidc", subject: "sub", userID: owner.id))
    }

    @Test(arguments: TestBackend.allCases)
    func aDeletedAccountsProviderTokensAreQueuedOnceAndRetried(_ backend: TestBackend) async throws {
        let (a, b) = try await Self.twoStores(backend)
        let owner = try await a.repositories.users.insert(Self.user("leaving@example.com"))
        for (subject, token) in [("s1", "sealed-1"), ("s2", nil), ("s3", "sealed-3")] {
            try await a.repositories.identities.link(
                LinkedIdentity(
                    provider: subject == "s3" ? "apple" : "oidc", subject: subject, userID: owner.id, email: nil,
                    linkedAt: Self.now, providerToken: token))
        }
        // Two instances deleting the account at once queue each token once, and take it off the link.
        let queued = try await withThrowingTaskGroup(of: Int.self) { group in
            for repositories in [a.repositories, b.repositories] {
                group.addTask { try await repositories.providerRevocations.queue(fromLinksOf: owner.id, at: Self.now) }
            }
            return try await group.reduce(0, +)
        }
        #expect(queued == 2)
        let links = try await a.repositories.identities.list(userID: owner.id)
        #expect(links.count == 3 && links.allSatisfy { $0.providerToken == nil })
        let due = try await b.repositories.providerRevocations.due(at: Self.now, limit: 10)
        #expect(Set(due.map(\.sealedToken)) == ["sealed-1", "sealed-3"] && due.allSatisfy { $0.attempts == 0 })
        #expect(try await a.repositories.providerRevocations.pendingCount() == 2)

        let first = try #require(due.first)
        try await a.repositories.providerRevocations.postpone(
            id: first.id, attempts: 1, until: Self.now + 60, error: "HTTP 503")
        let later = try await b.repositories.providerRevocations.due(at: Self.now, limit: 10)
        #expect(later.map(\.id) == [due[1].id], "a postponed one waits")
        let retried = try await b.repositories.providerRevocations.due(at: Self.now + 60, limit: 10)
        #expect(retried.first { $0.id == first.id }?.lastError == "HTTP 503")
        try await b.repositories.providerRevocations.remove(id: first.id)
        #expect(try await a.repositories.providerRevocations.pendingCount() == 1)
    }

    @Test(arguments: TestBackend.allCases)
    func theAuditLogFiltersAndPurgesAndAdminKeysRevokeOnce(_ backend: TestBackend) async throws {
        let repositories = try await TestStorage.open(backend).repositories
        for (index, action) in ["user.delete", "client.add", "user.delete"].enumerated() {
            try await repositories.audit.append(
                AuditEntry(
                    at: Self.now + Double(index), actor: "capturectl:root", action: action, target: "t\(index)",
                    outcome: "ok"))
        }
        #expect(try await repositories.audit.list(AuditFilter(action: "user.delete")).map(\.target) == ["t2", "t0"])
        #expect(try await repositories.audit.list(AuditFilter(actor: "service")).isEmpty)
        #expect(try await repositories.audit.list(AuditFilter(page: Page(limit: 1, offset: 1))).map(\.target) == ["t1"])
        #expect(try await repositories.audit.purge(before: Self.now + 1) == 1)

        let key = AdminKey(id: "k1", name: "ops", secretHash: "h", createdAt: Self.now)
        try await repositories.adminKeys.insert(key)
        #expect(try await repositories.adminKeys.find(id: "k1") == key)
        #expect(try await repositories.adminKeys.revoke(id: "k1", at: Self.now))
        #expect(try await !repositories.adminKeys.revoke(id: "k1", at: Self.now))
        #expect(try await repositories.adminKeys.list().map(\.revokedAt) == [Self.now])
        #expect(await repositories.isReady())
    }
}
