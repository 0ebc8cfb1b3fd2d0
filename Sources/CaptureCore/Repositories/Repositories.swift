/// The storage the features run on (`CaptureFeatures`): one value per backend, SQLite or PostgreSQL.
public struct Repositories: Sendable {
    public let users: any UserRepository
    public let tokens: any TokenRepository
    /// Token checks (`TokenChecks`): the backend's engine, behind a cache where the backend provides one.
    public let checks: any TokenChecks
    /// The records the server API answers with (`RecordReads`): the backend's engine.
    public let records: any RecordReads
    public let clients: any ClientRepository
    /// Janrain's client settings, the app's defaults and each client's own.
    public let clientSettings: any ClientSettingsRepository
    public let throttle: any ThrottleRepository
    public let codes: any CodeRepository
    public let outbox: any OutboxRepository
    public let socialLogins: any SocialLoginRepository
    public let identities: any IdentityRepository
    public let providerRevocations: any ProviderRevocationRepository
    public let audit: any AuditRepository
    public let adminKeys: any AdminKeyRepository
    public let passkeys: any PasskeyRepository
    public let ceremonies: any CeremonyRepository
    public let secondFactors: any SecondFactorRepository
    public let oidcGrants: any OIDCGrantRepository
    /// The service's JWS signing keys (OpenID Connect), sealed under the code key.
    public let signingKeys: any SigningKeyRepository
    /// Webhook subscriptions and their events' outbox.
    public let webhooks: any WebhookRepository
    /// True when the backing store answers a trivial query.
    public let isReady: @Sendable () async -> Bool

    public init(
        users: any UserRepository, tokens: any TokenRepository, checks: any TokenChecks, records: any RecordReads,
        clients: any ClientRepository,
        clientSettings: any ClientSettingsRepository, throttle: any ThrottleRepository, codes: any CodeRepository,
        outbox: any OutboxRepository,
        socialLogins: any SocialLoginRepository, identities: any IdentityRepository,
        providerRevocations: any ProviderRevocationRepository, audit: any AuditRepository,
        adminKeys: any AdminKeyRepository, passkeys: any PasskeyRepository, ceremonies: any CeremonyRepository,
        secondFactors: any SecondFactorRepository, oidcGrants: any OIDCGrantRepository,
        signingKeys: any SigningKeyRepository,
        webhooks: any WebhookRepository, isReady: @escaping @Sendable () async -> Bool
    ) {
        self.users = users
        self.tokens = tokens
        self.checks = checks
        self.records = records
        self.clients = clients
        self.clientSettings = clientSettings
        self.throttle = throttle
        self.codes = codes
        self.outbox = outbox
        self.socialLogins = socialLogins
        self.identities = identities
        self.providerRevocations = providerRevocations
        self.audit = audit
        self.adminKeys = adminKeys
        self.passkeys = passkeys
        self.ceremonies = ceremonies
        self.secondFactors = secondFactors
        self.oidcGrants = oidcGrants
        self.signingKeys = signingKeys
        self.webhooks = webhooks
        self.isReady = isReady
    }
}
