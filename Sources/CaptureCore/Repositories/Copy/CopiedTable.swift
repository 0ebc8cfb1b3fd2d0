/// What `capturectl db copy` carries from one store to another, parents before the records that name them. Each
/// backend keeps these in its own tables, columns and mapping; the copy sees only the domain values
/// (`CopiedPage`). A table a backend's migrations add must be added here too (`DatabaseCopyTests` compares).
public enum CopiedTable: String, Sendable, CaseIterable {
    case users
    /// The values of unique schema attributes each record claims (kept beside the profile by the write path).
    case userUnique = "user_unique"
    /// The highest Janrain number any record held, kept past its deletion; a store that never held one has none.
    case userNumberFloor = "user_number_floor"
    case clients
    case defaultSettings = "default_settings"
    case clientSettings = "client_settings"
    case tokens
    case throttle
    case codes
    case outbox
    case socialLogins = "social_logins"
    case identities
    case providerRevocations = "provider_revocations"
    case passkeys
    case ceremonies
    case secondFactors = "second_factors"
    case oidcGrants = "oidc_grants"
    case adminKeys = "admin_keys"
    case signingKeys = "signing_keys"
    case auditLog = "audit_log"
    case webhookSubscriptions = "webhook_subscriptions"
    case webhookEvents = "webhook_events"
    case webhookAttempts = "webhook_attempts"

    /// The name the copy's report gives it (the table's name on both backends).
    public var name: String { rawValue }
}
