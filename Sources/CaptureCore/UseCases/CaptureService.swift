import Foundation

/// The use cases, shared by the HTTP service and `capturectl`: one implementation of each rule. They are grouped by
/// feature beside this file: `Flows/` (pages, registration, sign-in, sign-out), `Tokens/` (grants, refresh, codes,
/// `/verify`, purging), `Accounts/` (the profile, addresses, recovery and verification codes, mail), `Social/`
/// (provider sign-in and links), `Factors/` (passkeys, authenticator apps, recovery codes) and `Admin/` (clients,
/// keys, audit, import, operator verbs).
public struct CaptureService: Sendable {
    public let settings: ServiceSettings
    public let catalog: FlowCatalog
    public let store: Repositories
    public let hasher: any PasswordHasher
    public let time: any TimeSource
    public let minter: TokenMinter
    public let throttle: SignInThrottle
    /// `settings.trustedProxies`, parsed once.
    public let proxies: TrustedProxies
    /// The WebAuthn relying party passkeys are made for (`AppAssociation.relyingParty`).
    public let relyingParty: RelyingParty
    /// The message templates of `settings.mailTemplatesDirectory`, read once.
    public let templates: MailTemplates
    /// Wakes the mail delivery loop (see `MailDelivery`).
    public let mailSignal = MailSignal()
    /// Client rows already read, checked against the store's clients version on each use.
    public let clientDirectory = ClientDirectory()
    /// Flow page links already checked, by query, at the clients version they were checked at.
    public let flowPageViews = VersionedCache<FlowPageQuery, FlowPageView>(capacity: 1024)
    /// Every client's allowed origins, at the clients version they were read at (one entry).
    public let crossOrigins = VersionedCache<Int, Set<URLOrigin>>(capacity: 1)
    /// The social sign-in providers that resolved at start-up (none until the server discovers them).
    public var social: SocialProviders = .none
    /// The key codes are stored under (`CodeKey`): the server loads the deployment's; tests and tools use their own.
    public var codeKey: CodeKey = .ephemeral()
    /// Where sign-ins, tokens and the outbox are counted (the server's Prometheus registry; else the global facade).
    public var metrics: CaptureMetrics = .facade
    /// A bcrypt hash at the configured cost that no password matches (`BcryptPasswordHasher.decoy`), checked for
    /// unknown addresses so both failures take as long.
    let decoyHash: String

    public init(
        settings: ServiceSettings, catalog: FlowCatalog, store: Repositories, hasher: any PasswordHasher,
        time: any TimeSource = SystemTime(), random: any RandomSource = SystemRandom(), decoyHash: String
    ) {
        self.settings = settings
        self.catalog = catalog
        self.store = store
        self.hasher = hasher
        self.time = time
        self.minter = TokenMinter(random: random)
        self.throttle = SignInThrottle(store: store.throttle, settings: settings)
        self.proxies = TrustedProxies(settings.trustedProxies, header: settings.proxyHeader) ?? .none
        self.relyingParty = AppAssociation.relyingParty(settings)
        self.templates = MailTemplates.load(directory: settings.mailTemplatesDirectory)
        self.decoyHash = decoyHash
    }

    /// Builds a service with bcrypt at the configured cost.
    public static func make(
        settings: ServiceSettings, catalog: FlowCatalog, store: Repositories,
        time: any TimeSource = SystemTime(), random: any RandomSource = SystemRandom()
    ) async -> CaptureService {
        let hasher = BcryptPasswordHasher(cost: settings.bcryptCost)
        return CaptureService(
            settings: settings, catalog: catalog, store: store, hasher: hasher, time: time, random: random,
            decoyHash: hasher.decoy(random: random))
    }
}
