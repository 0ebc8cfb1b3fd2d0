import CaptureCore
import CaptureStorage
import CaptureTestSupport
import Foundation
import Testing

/// `capturectl db copy`: a populated SQLite file to PostgreSQL and back, every row of every table the same, and the
/// copy serving the same sessions.
@Suite struct DatabaseCopyTests {
    /// A store with something in every table: accounts, a rotated and a reused session, a reset mail and its code,
    /// a confidential client and client settings, an admin key and the audit log, a linked provider account with its token kept, a provider token waiting to be revoked, a throttle counter, a
    /// social sign-in under way, a passkey, a ceremony under way, a second factor, signing keys, an OpenID Connect
    /// grant, and a webhook subscription with an event and its attempt.
    static func populated() async throws -> (TestWorld, IssuedGrant) {
        let world = try await TestWorld.current(backend: .sqlite)
        let service = world.service
        let first = try #require(try await world.register("copy@example.com").grant)
        let rotated = try await service.tokens.refresh(
            refreshToken: first.refreshToken, clientID: "demo-mobile-app", clientSecret: nil)
        _ = try? await service.tokens.refresh(refreshToken: first.refreshToken, clientID: "demo-mobile-app", clientSecret: nil)
        let live = try #require(try await world.register("other@example.com").grant)
        try await service.recovery.requestPasswordReset(
            FlowRequest(
                parameters: TestWorld.flowParameters(form: "forgotPasswordForm").merging(
                    ["signInEmailAddress": "other@example.com"]) { _, new in new }))
        _ = try? await service.signIn.signIn(
            FlowRequest(parameters: TestWorld.signIn(email: "other@example.com", password: "wrong guess")))
        _ = try await service.clientAdmin.addClient(
            id: "copied-backend", name: "Copied", confidential: true, redirectURIs: ["https://a.example/cb"],
            allowedOrigins: ["https://a.example"], responseTypes: ["code", "token"], legacyTokenURL: true)
        try await service.store.clientSettings.change(.defaults, set: ["site_name": "Copied app"], removing: [])
        try await service.store.clientSettings.change(
            .client("copied-backend"), set: ["password_recover_url": "https://a.example/reset"], removing: [])
        _ = try await service.admin.createAdminKey(name: "copy", by: .service)
        let user = try #require(try await service.store.users.find(email: "other@example.com"))
        try await service.store.identities.link(
            LinkedIdentity(
                provider: "mock", subject: "s1", userID: user.id, email: user.email, linkedAt: world.time.now(),
                providerToken: "sealed-kept"))
        // A deleted account's provider token waiting to be revoked.
        let deleted = try #require(try await service.store.users.find(email: "copy@example.com"))
        try await service.store.identities.link(
            LinkedIdentity(
                provider: "mock", subject: "s2", userID: deleted.id, email: deleted.email, linkedAt: world.time.now(),
                providerToken: "sealed-queued"))
        #expect(try await service.store.providerRevocations.queue(fromLinksOf: deleted.id, at: world.time.now()) == 1)
        var login = SocialLogin(
            stateHash: "state", provider: "mock", clientID: "demo-mobile-app", flow: "webViewSignIn", locale: "en-US",
            responseType: "token", returnURL: "https://a.example/", nonce: "n", codeVerifier: "v", createdAt: world.time.now())
        login.claims = ["email": .string("s@example.com")]
        login.providerToken = "sealed-on-its-way"
        try await service.store.socialLogins.insert(login)
        var passkey = Passkey(
            credentialID: "credential", userID: user.id, name: "Laptop", publicKey: Array(0...255), signCount: 3,
            backupEligible: true, backedUp: false, transports: ["internal", "hybrid"], createdAt: world.time.now())
        passkey.lastUsedAt = world.time.now()
        try await service.store.passkeys.insert(passkey)
        try await service.store.ceremonies.insert(
            PendingCeremony(
                hash: "ticket", kind: .secondFactor, userID: user.id, clientID: "demo-mobile-app", payload: "context",
                createdAt: world.time.now(), expiresAt: world.time.now() + 300))
        var factor = SecondFactor(
            userID: user.id, sealedSecret: "sealed", recoveryHashes: ["h1", "h2"], createdAt: world.time.now())
        factor.lastStep = 1
        try await service.store.secondFactors.save(factor)
        try await service.store.oidcGrants.insert(
            OIDCGrant(
                chainID: "chain", issuer: "https://id.example", clientID: "demo-mobile-app", userID: user.id,
                scopes: ["openid", "email"], nonce: "n", authTime: world.time.now(), methods: ["pwd"], acr: nil,
                sessionID: "session", expiresAt: world.time.now() + 3600))
        // Signing keys: a first pair, rotated (one retiring, one active of each algorithm).
        _ = try await service.signingKeys.sign(["sub": "x"], algorithm: .rs256)
        _ = try await service.signingKeys.rotate()
        // A webhook subscription, an event of a change it heard and an attempt at delivering it.
        let (subscription, _) = try await service.webhooks.add(
            WebhookDraft(title: "Copied hook", endpoint: "https://hooks.example/in", events: [.entityUpdated]))
        var changed = user
        changed.profile["givenName"] = .string("Copied")
        try await service.store.users.update(changed)
        let event = try #require(try await service.webhooks.events(WebhookEventQuery(subscriptionID: subscription.id)).first)
        var attempted = event
        attempted.attempts = 1
        try await service.store.webhooks.finish(
            attempted,
            attempt: WebhookAttempt(
                eventSequence: event.sequence ?? 0, at: world.time.now(), status: 500, milliseconds: 12, error: "HTTP 500"))
        _ = rotated
        return (world, live)
    }

    static func everyRow(_ store: OpenedStorage) async throws -> [String: [[StoredValue]]] {
        var tables: [String: [[StoredValue]]] = [:]
        for table in StoreCopy.tables {
            tables[table.name] = try await store.rows.rows(of: table, offset: 0, limit: 10_000)
        }
        return tables
    }

    @Test func aSQLiteFileCopiedToPostgreSQLAndBackKeepsEveryRowAndItsSessions() async throws {
        let (world, live) = try await Self.populated()
        let source = try await Self.everyRow(world.storage)
        for table in StoreCopy.tables where table.name != "user_unique" {
            #expect(source[table.name]?.isEmpty == false, "nothing in \(table.name) to copy")
        }

        let postgres = TestStorage.connectionString(try await TestStorage.newLocation(.postgres))
        let copied = try await CLI.run(["db", "copy", "--from", world.database, "--to", postgres, "--json"])
        #expect(copied.status == 0, "\(copied.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(copied.stdout.utf8)) as? [[String: Any]])
        #expect(report.map { $0["table"] as? String } == StoreCopy.tables.map(\.name))
        for entry in report {
            #expect(entry["rows"] as? Int == source[entry["table"] as! String]?.count, "\(entry)")
        }
        let onPostgres = try await OpenedStorage.open(try DatabaseLocation(postgres))
        #expect(try await Self.everyRow(onPostgres) == source)

        // The copy serves the same sessions: the access token checks, the refresh token rotates (new ids continue
        // after the copied ones), the reused chain stays revoked.
        let service = await CaptureFeatures.make(
            settings: world.service.settings, catalog: world.service.catalog, store: onPostgres.repositories,
            time: world.time, codeKey: world.service.codeKey)
        #expect(try await service.profile.entity(accessToken: live.accessToken).email == "other@example.com")
        // Under the same code key the copy publishes the same signing keys.
        #expect(try await service.signingKeys.document() == world.service.signingKeys.document())
        let next = try await service.tokens.refresh(
            refreshToken: live.refreshToken, clientID: "demo-mobile-app", clientSecret: nil)
        let ids = try await onPostgres.repositories.tokens.list(TokenFilter(now: world.time.now())).compactMap(\.id)
        let copiedIDs = source["tokens"]!.map { row -> Int64 in if case .integer(let id) = row[0] { id } else { 0 } }
        #expect(Set(ids).isSuperset(of: copiedIDs) && ids.max()! > copiedIDs.max()!)
        _ = next

        // Back into a new SQLite file: the same rows again (the refresh just made on PostgreSQL included).
        let back = TestStorage.connectionString(try await TestStorage.newLocation(.sqlite))
        let returned = try await CLI.run(["db", "copy", "--from", postgres, "--to", back])
        #expect(returned.status == 0, "\(returned.stderr)")
        let onSQLite = try await OpenedStorage.open(try DatabaseLocation(back))
        #expect(try await Self.everyRow(onSQLite) == Self.everyRow(onPostgres))

        // A target that already holds records is refused, and left as it was.
        let again = try await CLI.run(["db", "copy", "--from", world.database, "--to", back])
        #expect(again.status == 1 && again.stderr.contains("not empty"), "\(again.stderr)")
        #expect(try await onSQLite.rows.count(StoreCopy.tables[0]) == 2)
        try await onPostgres.close()
        try await onSQLite.close()
    }

    @Test func aMissingSourceOrABadURLIsRefusedBeforeAnythingIsWritten() async throws {
        let target = FileManager.default.temporaryDirectory.appendingPathComponent("copy-\(UUID().uuidString).sqlite").path
        let missing = try await CLI.run(["db", "copy", "--from", "/nonexistent/capture.sqlite", "--to", target])
        #expect(missing.status == 1 && missing.stderr.contains("/nonexistent/capture.sqlite"))
        #expect(!FileManager.default.fileExists(atPath: target))
        let bad = try await CLI.run(["db", "copy", "--from", "mysql://x/y", "--to", target])
        #expect(bad.status == 2 && bad.stderr.contains("not supported"), "\(bad.stderr)")
    }
}
