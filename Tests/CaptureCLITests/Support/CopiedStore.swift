import CaptureCore
import CaptureStorage
import CaptureTestSupport
import Foundation
import Testing

/// A SQLite store with at least one record of every table `capturectl db copy` carries, and ways to read a store's
/// records back (through the copy's own reads and through the repositories the features use).
enum CopiedStore {
    /// Every table filled: accounts with a unique attribute's value, one deleted above the others (the number floor),
    /// a rotated and a reused session, tokens of every kind, a reset mail and its code, a client with every field
    /// and client settings, an admin key and the audit log, linked provider accounts, a provider token waiting to be
    /// revoked, a throttle counter, a social sign-in under way, a passkey, a ceremony, a second factor, signing keys,
    /// an OpenID Connect grant, and a webhook subscription with an event and its attempt.
    static func populated() async throws -> (TestWorld, IssuedGrant) {
        // displayName unique, as many Janrain applications had it: user_unique holds each record's.
        let settings = try TestWorld.settingsCopy(
            replacingInSchema: #""displayName": { "type": "string", "length": 64 }"#,
            with: #""displayName": { "type": "string", "length": 64, "unique": true }"#)
        defer { try? FileManager.default.removeItem(at: settings) }
        let world = try await TestWorld.make(backend: .sqlite, settingsDirectory: settings)
        let behind = Date().timeIntervalSince(world.time.now())
        if behind > 0 { world.time.advance(by: behind) }
        let service = world.service
        let store = service.store
        func register(_ email: String, _ name: String) async throws -> AuthResult {
            var parameters = TestWorld.registration(email: email)
            parameters["displayName"] = name
            return try await service.signIn.register(FlowRequest(parameters: parameters))
        }
        let first = try #require(try await register("copy@example.com", "First").grant)
        _ = try await service.tokens.refresh(refreshToken: first.refreshToken, clientID: "demo-mobile-app", clientSecret: nil)
        // Reused: the chain is revoked, its tokens used and revoked.
        _ = try? await service.tokens.refresh(refreshToken: first.refreshToken, clientID: "demo-mobile-app", clientSecret: nil)
        let live = try #require(try await register("other@example.com", "Other").grant)
        // The newest number, deleted: the floor keeps it, so no registration takes it again.
        let gone = try await register("gone@example.com", "Gone")
        #expect(try await store.users.delete(id: gone.user.id))
        try await service.recovery.requestPasswordReset(
            FlowRequest(
                parameters: TestWorld.flowParameters(form: "forgotPasswordForm").merging(
                    ["signInEmailAddress": "other@example.com"]) { _, new in new }))
        _ = try? await service.signIn.signIn(
            FlowRequest(parameters: TestWorld.signIn(email: "other@example.com", password: "wrong guess")))
        let now = world.time.now()
        var client = Client(
            clientID: "copied-backend", name: "Copied", secretHash: "secret-hash", redirectURIs: ["https://a.example/cb"],
            allowedOrigins: ["https://a.example"], responseTypes: [.code, .token, .codeAndToken], legacyTokenURL: true,
            accessTokenLifeHours: 2.5, createdAt: now)
        client.keepSessionsOnPasswordChange = true
        client.requireVerifiedEmail = true
        client.allowUnverifiedEmail = true
        client.features = [.owner, .directAccess, .accessIssuer]
        client.whitelist = ["203.0.113.0/24"]
        client.sealedSecret = "sealed-secret"
        client.retiringSecret = RetiringSecret(hash: "old-hash", sealed: "old-sealed", expiresAt: now + 3600)
        try await store.clients.insert(client)
        try await store.clientSettings.change(.defaults, set: ["site_name": "Copied app"], removing: [])
        try await store.clientSettings.change(
            .client("copied-backend"), set: ["password_recover_url": "https://a.example/reset"], removing: [])
        _ = try await service.admin.createAdminKey(name: "copy", by: .service)
        let user = try #require(try await store.users.find(email: "other@example.com"))
        // The kinds a sign-in does not leave behind, every optional field set.
        var code = TokenRecord(
            kind: .code, hash: "code-hash", userID: user.id, clientID: "copied-backend", chainID: "code-chain",
            scope: "openid email", authProvider: "capture", issuedAt: now, expiresAt: now + 60)
        code.redirectURI = "https://a.example/cb"
        code.codeChallenge = "challenge"
        code.usedAt = now
        var device = TokenRecord(
            kind: .device, hash: "device-hash", userID: user.id, clientID: "demo-mobile-app", chainID: "device",
            issuedAt: now, expiresAt: now + 86_400)
        device.device = "Firefox on Linux"
        var signOut = TokenRecord(
            kind: .signOut, hash: "sign-out-hash", userID: user.id, clientID: "copied-backend", chainID: "code-chain",
            issuedAt: now, expiresAt: now + 600, refreshSecret: "refresh-secret")
        signOut.revokedAt = now
        try await store.tokens.insert([code, device, signOut])
        try await store.identities.link(
            LinkedIdentity(
                provider: "mock", subject: "s1", userID: user.id, email: user.email, linkedAt: now,
                providerToken: "sealed-kept"))
        // A deleted account's provider token waiting to be revoked.
        let deleted = try #require(try await store.users.find(email: "copy@example.com"))
        try await store.identities.link(
            LinkedIdentity(
                provider: "mock", subject: "s2", userID: deleted.id, email: deleted.email, linkedAt: now,
                providerToken: "sealed-queued"))
        #expect(try await store.providerRevocations.queue(fromLinksOf: deleted.id, at: now) == 1)
        var login = SocialLogin(
            stateHash: "state", provider: "mock", clientID: "demo-mobile-app", flow: "webViewSignIn", locale: "en-US",
            responseType: .token, returnURL: "https://a.example/", nonce: "n", codeVerifier: "v", createdAt: now)
        login.claims = ["email": .string("s@example.com")]
        login.providerToken = "sealed-on-its-way"
        try await store.socialLogins.insert(login)
        var passkey = Passkey(
            credentialID: "credential", userID: user.id, name: "Laptop", publicKey: Array(0...255), signCount: 3,
            backupEligible: true, backedUp: false, transports: ["internal", "hybrid"], createdAt: now)
        passkey.lastUsedAt = now
        try await store.passkeys.insert(passkey)
        try await store.ceremonies.insert(
            PendingCeremony(
                hash: "ticket", kind: .secondFactor, userID: user.id, clientID: "demo-mobile-app", payload: "context",
                createdAt: now, expiresAt: now + 300))
        var factor = SecondFactor(userID: user.id, sealedSecret: "sealed", recoveryHashes: ["h1", "h2"], createdAt: now)
        factor.lastStep = 1
        try await store.secondFactors.save(factor)
        try await store.oidcGrants.insert(
            OIDCGrant(
                chainID: "chain", issuer: "https://id.example", clientID: "demo-mobile-app", userID: user.id,
                scopes: ["openid", "email"], nonce: "n", authTime: now, methods: ["pwd"], acr: nil, sessionID: "session",
                expiresAt: now + 3600))
        // Signing keys: a first pair, rotated (one retiring, one active of each algorithm).
        _ = try await service.signingKeys.sign(["sub": "x"], algorithm: .rs256)
        _ = try await service.signingKeys.rotate()
        // A webhook subscription, an event of a change it heard and an attempt at delivering it.
        let (subscription, _) = try await service.webhooks.add(
            WebhookDraft(title: "Copied hook", endpoint: "https://hooks.example/in", events: [.entityUpdated]))
        var changed = user
        changed.profile["givenName"] = .string("Copied")
        try await store.users.update(changed)
        let event = try #require(try await service.webhooks.events(WebhookEventQuery(subscriptionID: subscription.id)).first)
        var attempted = event
        attempted.attempts = 1
        try await store.webhooks.finish(
            attempted,
            attempt: WebhookAttempt(
                eventSequence: event.sequence ?? 0, at: now, status: 500, milliseconds: 12, error: "HTTP 500"))
        return (world, live)
    }

    /// Every record of every table, as the store's own copy reads them (its rows mapped to domain values).
    static func everyRecord(_ store: OpenedStorage) async throws -> [CopiedTable: CopiedPage] {
        var tables: [CopiedTable: CopiedPage] = [:]
        for table in CopiedTable.allCases {
            tables[table] = try await store.records.page(of: table, offset: 0, limit: 10_000)
        }
        return tables
    }
}

/// What the features' repositories read back of the records a populated store holds, for comparing two stores.
struct RepositoryReadings: Equatable {
    var users: [User?] = []
    var tokens: [TokenRecord?] = []
    var clients: [Client] = []
    var defaultSettings: [String: String] = [:]
    var clientSettings: [String: [String: String]] = [:]
    var outbox: [OutboxEntry] = []
    var identities: [LinkedIdentity?] = []
    var revocations: [ProviderRevocation] = []
    var passkeys: [Passkey?] = []
    var secondFactors: [SecondFactor?] = []
    var oidcGrants: [OIDCGrant?] = []
    var adminKeys: [AdminKey] = []
    var signingKeys: [SigningKey] = []
    var audit: [AuditEntry] = []
    var subscriptions: [WebhookSubscription] = []
    var events: [WebhookEvent] = []
    var attempts: [[WebhookAttempt]] = []

    /// Reads, through `repositories`, the records `records` (one store's copy reads) names.
    static func read(
        _ repositories: Repositories, naming records: [CopiedTable: CopiedPage], now: Date
    ) async throws -> RepositoryReadings {
        var readings = RepositoryReadings()
        if case .users(let users)? = records[.users] {
            for user in users { readings.users.append(try await repositories.users.find(id: user.id)) }
        }
        if case .tokens(let tokens)? = records[.tokens] {
            for token in tokens { readings.tokens.append(try await repositories.tokens.find(id: token.id ?? 0)) }
        }
        if case .identities(let identities)? = records[.identities] {
            for identity in identities {
                readings.identities.append(
                    try await repositories.identities.find(provider: identity.provider, subject: identity.subject))
            }
        }
        if case .passkeys(let passkeys)? = records[.passkeys] {
            for passkey in passkeys {
                readings.passkeys.append(try await repositories.passkeys.find(credentialID: passkey.credentialID))
            }
        }
        if case .secondFactors(let factors)? = records[.secondFactors] {
            for factor in factors {
                readings.secondFactors.append(try await repositories.secondFactors.find(userID: factor.userID))
            }
        }
        if case .oidcGrants(let grants)? = records[.oidcGrants] {
            for grant in grants { readings.oidcGrants.append(try await repositories.oidcGrants.find(chainID: grant.chainID)) }
        }
        readings.clients = try await repositories.clients.list().sorted { $0.clientID < $1.clientID }
        readings.defaultSettings = try await repositories.clientSettings.values(of: .defaults)
        readings.clientSettings = try await repositories.clientSettings.allClientValues()
        readings.outbox = try await repositories.outbox.list(limit: 1000)
        readings.revocations = try await repositories.providerRevocations.due(at: now + 86_400 * 365, limit: 1000)
        readings.adminKeys = try await repositories.adminKeys.list()
        readings.signingKeys = try await repositories.signingKeys.list()
        readings.audit = try await repositories.audit.list(AuditFilter(page: Page(limit: 1000)))
        readings.subscriptions = try await repositories.webhooks.subscriptions()
        readings.events = try await repositories.webhooks.events(WebhookEventQuery(page: Page(limit: 1000)))
        for event in readings.events {
            readings.attempts.append(try await repositories.webhooks.attempts(of: event.sequence ?? 0))
        }
        return readings
    }
}
