import Foundation

/// The composition root: every feature built once from the storage, the settings and the shared parts, each holding
/// only what it uses (its stored properties are the list). The HTTP service and `capturectl` take the feature they
/// serve from here. Features are grouped beside this file: `Flows/` (pages, registration, sign-in), `Tokens/`,
/// `Accounts/` (profile, recovery, step-up), `Privacy/` (deletion, data download, sessions), `Social/`, `Factors/`,
/// `Admin/`, and `Shared/` (the collaborators several features use: audit, clients, codes, token minting).
public struct CaptureFeatures: Sendable {
    public let settings: ServiceSettings
    public let catalog: FlowCatalog
    public let store: Repositories
    /// `settings.trustedProxies`, parsed once.
    public let proxies: TrustedProxies
    /// Where sign-ins, tokens and the outbox are counted (the server's Prometheus registry; else the global facade).
    public let metrics: CaptureMetrics
    /// Wakes the mail delivery loop (see `MailDelivery`).
    public let mailSignal: MailSignal
    /// Wakes the webhooks' delivery loop (see `WebhookDelivery`).
    public let webhookSignal = MailSignal()
    /// Webhook subscriptions, their events' history, redelivery and test sends.
    public let webhooks: WebhookService

    public let audit: AuditTrail
    public let clients: ClientAccess
    public let accessTokens: AccessTokenCheck
    public let tokens: TokenService
    public let flowPages: FlowPageService
    public let signIn: SignInService
    public let social: SocialService
    public let recovery: RecoveryService
    public let profile: ProfileService
    public let privacy: PrivacyService
    public let factors: FactorService
    public let clientAdmin: ClientAdministration
    /// Janrain's `clients/*` and `settings/*` on the server API.
    public let clientSettings: ClientSettingsService
    /// Janrain's client settings as pages and mails read them (a client's own over the defaults).
    public let clientSettingsAccess: ClientSettingsAccess
    public let admin: AdminService
    public let housekeeping: Housekeeping
    /// Janrain's server API: who may call it, and its record calls.
    public let serverAuthentication: ServerAuthentication
    public let records: RecordService
    public let access: AccessIssuing
    /// Client secrets sealed for Janrain-signed requests.
    public let clientSecrets: ClientSecrets
    /// Provider links as operators and the data download list them.
    public let providerLinks: ProviderLinks
    /// Mints the service's tokens and identifiers (`TokenMinter`).
    public let minter: TokenMinter
    /// The OpenID Connect provider.
    public let oidc: OIDCService
    /// The JWS signing keys of OpenID Connect (ID tokens) and the JWKS that publishes them.
    public let signingKeys: SigningKeys
    /// The social sign-in providers that resolved at start-up.
    public var providers: SocialProviders { parts.social }
    /// The key codes are stored under.
    public var codeKey: CodeKey { parts.codeKey }
    /// The clock every feature reads.
    public var time: any TimeSource { parts.time }
    /// The parts the features were built from, for `with(social:)`.
    let parts: Parts

    /// What the features are built from besides the settings, catalog and storage.
    public struct Parts: Sendable {
        public var hasher: any PasswordHasher
        public var time: any TimeSource
        public var random: any RandomSource
        /// A bcrypt hash at the configured cost that no password matches (`BcryptPasswordHasher.decoy`), checked for
        /// unknown addresses so both failures take as long.
        public var decoyHash: String
        /// The social sign-in providers that resolved at start-up.
        public var social: SocialProviders = .none
        /// The key codes are stored under (`CodeKey`): the server loads the deployment's; tests and tools use their own.
        public var codeKey: CodeKey = .ephemeral()
        public var metrics: CaptureMetrics = .facade
        /// The Janrain app being replaced (`settings.legacyJanrain`), asked by `LegacyMigration`; nil: never.
        public var legacy: (any LegacyApp)?
        /// Its breaker, one per process (kept here so `with(social:)` keeps counting).
        public var legacyBreaker: LegacyBreaker?

        public init(
            hasher: any PasswordHasher, time: any TimeSource, random: any RandomSource, decoyHash: String,
            social: SocialProviders = .none, codeKey: CodeKey = .ephemeral(), metrics: CaptureMetrics = .facade,
            legacy: (any LegacyApp)? = nil, legacyBreaker: LegacyBreaker? = nil
        ) {
            self.legacy = legacy
            self.legacyBreaker = legacyBreaker
            self.hasher = hasher
            self.time = time
            self.random = random
            self.decoyHash = decoyHash
            self.social = social
            self.codeKey = codeKey
            self.metrics = metrics
        }
    }

    public init(settings: ServiceSettings, catalog: FlowCatalog, store: Repositories, parts: Parts) {
        self.settings = settings
        self.catalog = catalog
        self.store = store
        self.parts = parts
        let time = parts.time, metrics = parts.metrics, codeKey = parts.codeKey, social = parts.social
        let minter = TokenMinter(random: parts.random)
        self.minter = minter
        let throttle = SignInThrottle(store: store.throttle, settings: settings)
        self.proxies = TrustedProxies(settings.trustedProxies, header: settings.proxyHeader) ?? .none
        self.metrics = metrics
        let mailSignal = MailSignal()
        self.mailSignal = mailSignal

        let audit = AuditTrail(log: store.audit, time: time, settings: settings)
        let clientAccess = ClientAccess(
            clients: store.clients, clientDirectory: ClientDirectory(), settings: settings, time: time)
        let clientSettingsAccess = ClientSettingsAccess(clients: store.clients, clientSettings: store.clientSettings)
        let accessTokens = AccessTokenCheck(checks: store.checks, time: time)
        let issuer = TokenIssuer(tokens: store.tokens, minter: minter, time: time, settings: settings, metrics: metrics)
        let oneTimeCodes = OneTimeCodes(
            users: store.users, throttleStore: store.throttle, codes: store.codes, outbox: store.outbox,
            templates: MailTemplates.load(directory: settings.mailTemplatesDirectory), mailSignal: mailSignal,
            codeKey: codeKey, minter: minter, time: time, settings: settings, catalog: catalog,
            clientSettings: clientSettingsAccess)
        let writer = RecordWriter(catalog: catalog, time: time, audit: audit)
        let admission = Admission(users: store.users, time: time, catalog: catalog, settings: settings, audit: audit)
        let terms = TermsGate(
            users: store.users, ceremonies: store.ceremonies, minter: minter, time: time, settings: settings,
            catalog: catalog, audit: audit)
        let provenAddress = ProvenAddress(
            checks: store.checks, throttle: throttle, catalog: catalog, time: time, oneTimeCodes: oneTimeCodes)
        let secondFactor = SecondFactorCheck(
            secondFactors: store.secondFactors, ceremonies: store.ceremonies, minter: minter, time: time,
            settings: settings, codeKey: codeKey)
        let stepUp = StepUpCheck(
            throttle: throttle, hasher: parts.hasher, decoyHash: parts.decoyHash, secondFactors: store.secondFactors,
            time: time, settings: settings, catalog: catalog, secondFactor: secondFactor, audit: audit)
        let signingKeys = SigningKeys(store: store.signingKeys, codeKey: codeKey, time: time, settings: settings)
        let oidcCodes = OIDCCodes(
            issuer: issuer, grants: store.oidcGrants, codeKey: codeKey, minter: minter, time: time, settings: settings)
        let steps = FlowSteps(
            catalog: catalog, settings: settings, clientAccess: clientAccess, admission: admission,
            provenAddress: provenAddress, terms: terms, issuer: issuer, oidcCodes: oidcCodes)
        let addressChange = AddressChange(
            users: store.users, tokens: store.tokens, codes: store.codes, catalog: catalog, settings: settings, time: time,
            metrics: metrics, clientAccess: clientAccess, oneTimeCodes: oneTimeCodes, audit: audit)
        let mailboxProof = MailboxProof(
            identities: store.identities, tokens: store.tokens, social: social, time: time, metrics: metrics,
            oneTimeCodes: oneTimeCodes, audit: audit)
        let migration = LegacyMigration(
            legacy: parts.legacy, settings: settings.legacyJanrain,
            breaker: parts.legacyBreaker ?? settings.legacyJanrain.map(LegacyBreaker.init), users: store.users,
            hasher: parts.hasher, catalog: catalog, time: time, audit: audit)
        let providerLinks = ProviderLinks(
            socialLogins: store.socialLogins, identities: store.identities, social: social, time: time)
        let revocations = ProviderRevocations(
            providerRevocations: store.providerRevocations, social: social, codeKey: codeKey, time: time, audit: audit)
        let providerIdentities = ProviderIdentities(social: social, settings: settings, time: time)
        let removal = AccountRemoval(
            users: store.users, tokens: store.tokens, codeKey: codeKey, catalog: catalog, time: time, metrics: metrics,
            settings: settings, oneTimeCodes: oneTimeCodes, revocations: revocations, audit: audit)
        let clientAdmin = ClientAdministration(
            clients: store.clients, clientSettings: store.clientSettings, tokens: store.tokens, catalog: catalog,
            settings: settings, time: time,
            minter: minter, metrics: metrics, clientAccess: clientAccess, secrets: ClientSecrets(key: codeKey))
        let profile = ProfileService(
            users: store.users, tokens: store.tokens, identities: store.identities, passkeys: store.passkeys,
            hasher: parts.hasher, time: time, metrics: metrics, catalog: catalog, steps: steps,
            accessTokens: accessTokens, writer: writer, addressChange: addressChange, stepUp: stepUp)

        let clientSecrets = ClientSecrets(key: codeKey)
        let creationTokens = CreationTokens(key: codeKey, store: store.throttle, minter: minter, time: time)
        let serverAuthentication = ServerAuthentication(
            clientAccess: clientAccess, accessTokens: accessTokens, secrets: clientSecrets,
            throttle: ClientAuthThrottle(store: store.throttle, settings: settings), creationTokens: creationTokens,
            settings: settings, time: time, audit: audit)
        self.access = AccessIssuing(
            users: store.users, catalog: catalog, authentication: serverAuthentication, clientAccess: clientAccess,
            issuer: issuer, creationTokens: creationTokens, audit: audit)
        self.clientSecrets = clientSecrets
        self.serverAuthentication = serverAuthentication
        self.records = RecordService(
            users: store.users, records: store.records, hasher: parts.hasher,
            catalog: catalog, time: time, minter: minter, authentication: serverAuthentication, profile: profile,
            removal: removal, writer: writer, audit: audit)
        self.audit = audit
        self.providerLinks = providerLinks
        self.clients = clientAccess
        self.accessTokens = accessTokens
        self.clientAdmin = clientAdmin
        self.clientSettingsAccess = clientSettingsAccess
        self.clientSettings = ClientSettingsService(
            clients: store.clients, clientSettings: store.clientSettings, time: time, minter: minter,
            secrets: ClientSecrets(key: codeKey),
            settingsAccess: clientSettingsAccess, clientAdmin: clientAdmin, audit: audit)
        self.profile = profile
        self.tokens = TokenService(
            tokens: store.tokens, checks: store.checks, time: time, metrics: metrics, settings: settings, issuer: issuer,
            clientAccess: clientAccess, provenAddress: provenAddress, audit: audit)
        self.flowPages = FlowPageService(
            clients: store.clients, catalog: catalog, settings: settings,
            flowPageViews: VersionedCache(capacity: 1024), crossOrigins: VersionedCache(capacity: 1), social: social,
            clientAccess: clientAccess, clientSettings: clientSettingsAccess, steps: steps)
        self.signIn = SignInService(
            users: store.users, throttle: throttle, hasher: parts.hasher, decoyHash: parts.decoyHash, time: time,
            metrics: metrics, ceremonies: store.ceremonies, catalog: catalog, settings: settings, minter: minter,
            steps: steps, admission: admission, terms: terms, issuer: issuer, audit: audit, writer: writer,
            oneTimeCodes: oneTimeCodes, provenAddress: provenAddress, secondFactor: secondFactor,
            providerLinks: providerLinks, migration: migration)
        self.social = SocialService(
            users: store.users, identities: store.identities, socialLogins: store.socialLogins, throttle: throttle,
            time: time, minter: minter, social: social, catalog: catalog, settings: settings, metrics: metrics,
            codeKey: codeKey, steps: steps, admission: admission, terms: terms, accessTokens: accessTokens,
            clientAccess: clientAccess,
            writer: writer, oneTimeCodes: oneTimeCodes, stepUp: stepUp, secondFactor: secondFactor,
            revocations: revocations, providerLinks: providerLinks, providerIdentities: providerIdentities)
        self.recovery = RecoveryService(
            users: store.users, tokens: store.tokens, throttle: throttle, codes: store.codes, hasher: parts.hasher,
            time: time, metrics: metrics, catalog: catalog, steps: steps, audit: audit, oneTimeCodes: oneTimeCodes,
            addressChange: addressChange, mailboxProof: mailboxProof, migration: migration)
        self.privacy = PrivacyService(
            users: store.users, tokens: store.tokens, secondFactors: store.secondFactors, time: time, metrics: metrics,
            catalog: catalog, settings: settings, steps: steps, removal: removal, accessTokens: accessTokens,
            audit: audit, oneTimeCodes: oneTimeCodes, stepUp: stepUp, clientAccess: clientAccess,
            providerLinks: providerLinks, profile: profile)
        self.factors = FactorService(
            users: store.users, ceremonies: store.ceremonies, secondFactors: store.secondFactors,
            passkeys: store.passkeys, time: time, minter: minter, relyingParty: AppAssociation.relyingParty(settings),
            codeKey: codeKey, settings: settings, metrics: metrics, admission: admission, steps: steps, audit: audit,
            accessTokens: accessTokens, stepUp: stepUp, secondFactor: secondFactor, clientAccess: clientAccess,
            clientSettings: clientSettingsAccess)
        self.admin = AdminService(
            users: store.users, identities: store.identities, tokens: store.tokens, outbox: store.outbox,
            adminKeys: store.adminKeys,
            passkeys: store.passkeys, secondFactors: store.secondFactors, time: time, minter: minter,
            mailSignal: mailSignal, metrics: metrics, settings: settings, catalog: catalog, clientAdmin: clientAdmin,
            removal: removal, audit: audit)
        self.webhooks = WebhookService(
            webhooks: store.webhooks, time: time, random: parts.random, codeKey: codeKey, settings: settings.webhooks,
            signal: webhookSignal)
        self.housekeeping = Housekeeping(
            tokens: store.tokens, throttleStore: store.throttle, codes: store.codes, outbox: store.outbox,
            socialLogins: store.socialLogins, providerRevocations: store.providerRevocations,
            ceremonies: store.ceremonies, oidcGrants: store.oidcGrants, time: time, metrics: metrics, settings: settings,
            audit: audit, removal: removal, revocations: revocations)
        self.signingKeys = signingKeys
        self.oidc = OIDCService(
            clientAccess: clientAccess, clientSettings: clientSettingsAccess, grants: store.oidcGrants,
            tokens: store.tokens, users: store.users, accessTokens: accessTokens, signingKeys: signingKeys,
            codes: oidcCodes, claims: ClaimMapping(settings: settings.openIDConnect), catalog: catalog,
            settings: settings, time: time, audit: audit)
    }

    /// Builds the features with bcrypt at the configured cost.
    public static func make(
        settings: ServiceSettings, catalog: FlowCatalog, store: Repositories,
        time: any TimeSource = SystemTime(), random: any RandomSource = SystemRandom(),
        social: SocialProviders = .none, codeKey: CodeKey = .ephemeral(), metrics: CaptureMetrics = .facade,
        legacy: (any LegacyApp)? = nil
    ) async -> CaptureFeatures {
        let hasher = BcryptPasswordHasher(cost: settings.bcryptCost)
        return CaptureFeatures(
            settings: settings, catalog: catalog, store: store,
            parts: Parts(
                hasher: hasher, time: time, random: random, decoyHash: hasher.decoy(random: random), social: social,
                codeKey: codeKey, metrics: metrics, legacy: legacy,
                legacyBreaker: settings.legacyJanrain.map(LegacyBreaker.init)))
    }

    /// The same features with other providers (the server resolves them after the store is open).
    public func with(social: SocialProviders) -> CaptureFeatures {
        var parts = parts
        parts.social = social
        return CaptureFeatures(settings: settings, catalog: catalog, store: store, parts: parts)
    }
}
