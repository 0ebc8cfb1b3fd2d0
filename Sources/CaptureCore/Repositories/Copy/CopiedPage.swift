/// A page of one table's records as domain values, every stored field kept (generated ids, hashes, sealed values,
/// timestamps): what one backend reads and the other writes as it is.
public enum CopiedPage: Sendable, Equatable {
    case users([User])
    case userUnique([UniqueValueClaim])
    /// The floor's value, when the store holds one above zero.
    case userNumberFloor([Int64])
    case clients([Client])
    case defaultSettings([StoredSetting])
    case clientSettings([StoredSetting])
    case tokens([TokenRecord])
    case throttle([StoredThrottle])
    case codes([OneTimeCode])
    case outbox([OutboxEntry])
    case socialLogins([SocialLogin])
    case identities([LinkedIdentity])
    case providerRevocations([ProviderRevocation])
    case passkeys([Passkey])
    case ceremonies([PendingCeremony])
    case secondFactors([SecondFactor])
    case oidcGrants([OIDCGrant])
    case adminKeys([AdminKey])
    case signingKeys([SigningKey])
    case auditLog([AuditEntry])
    case webhookSubscriptions([WebhookSubscription])
    case webhookEvents([WebhookEvent])
    case webhookAttempts([StoredWebhookAttempt])

    /// How many records it holds.
    public var count: Int {
        switch self {
        case .users(let records): records.count
        case .userUnique(let records): records.count
        case .userNumberFloor(let records): records.count
        case .clients(let records): records.count
        case .defaultSettings(let records): records.count
        case .clientSettings(let records): records.count
        case .tokens(let records): records.count
        case .throttle(let records): records.count
        case .codes(let records): records.count
        case .outbox(let records): records.count
        case .socialLogins(let records): records.count
        case .identities(let records): records.count
        case .providerRevocations(let records): records.count
        case .passkeys(let records): records.count
        case .ceremonies(let records): records.count
        case .secondFactors(let records): records.count
        case .oidcGrants(let records): records.count
        case .adminKeys(let records): records.count
        case .signingKeys(let records): records.count
        case .auditLog(let records): records.count
        case .webhookSubscriptions(let records): records.count
        case .webhookEvents(let records): records.count
        case .webhookAttempts(let records): records.count
        }
    }
}
