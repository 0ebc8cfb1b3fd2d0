import Foundation

/// What one purge pass removed, item by item in the order they ran (`capture_purged_rows_total{what}`).
public struct PurgeReport: Sendable, Equatable {
    public struct Item: Sendable, Equatable {
        public let name: String
        public let count: Int
    }

    public private(set) var items: [Item] = []

    public init() {}

    public mutating func add(_ name: String, _ count: Int) { items.append(Item(name: name, count: count)) }

    public subscript(name: String) -> Int { items.first { $0.name == name }?.count ?? 0 }

    public var total: Int { items.reduce(0) { $0 + $1.count } }
}

/// The purge pass: expired rows, due erasures and provider revocations, queue depths.
public struct Housekeeping: Sendable {
    let tokens: any TokenRepository
    let throttleStore: any ThrottleRepository
    let codes: any CodeRepository
    let outbox: any OutboxRepository
    let socialLogins: any SocialLoginRepository
    let providerRevocations: any ProviderRevocationRepository
    let ceremonies: any CeremonyRepository
    let oidcGrants: any OIDCGrantRepository
    let time: any TimeSource
    let metrics: CaptureMetrics
    let settings: ServiceSettings
    let audit: AuditTrail
    let removal: AccountRemoval
    let revocations: ProviderRevocations
}

extension Housekeeping {
    /// How long an expired one-time code is kept, so that someone who types it late hears "expired", not "wrong".
    public static let expiredCodeGrace: TimeInterval = 86400

    /// Deletes what has expired in the store: one pass, each kind of row by its own rule. The server runs it every
    /// `purgeIntervalMinutes` (`PurgeService`); a new kind of expiring row adds one line here.
    public func purgeExpired() async throws -> PurgeReport {
        let now = time.now()
        var report = PurgeReport()
        report.add("tokens", try await purgeExpiredTokens())
        report.add("codes", try await codes.purge(expiredBefore: now - Self.expiredCodeGrace))
        report.add("social_logins", try await socialLogins.purge(expiredBefore: now - SocialLogin.retention))
        report.add("throttle", try await throttleStore.purge(expiredBefore: now))
        report.add("ceremonies", try await ceremonies.purge(expiredBefore: now))
        report.add("oidc_grants", try await oidcGrants.purge(expiredBefore: now))
        // Without a relay the delivery loop never runs, so stale bodies are forgotten here too.
        let bodies = try await outbox.forgetBodies(at: now)
        if bodies > 0 { try await outbox.scrub() }
        report.add("mail_bodies", bodies)
        report.add("audit_log", try await audit.purgeAuditLog())
        report.add("accounts_erased", try await removal.eraseDueAccounts())
        report.add("provider_tokens_revoked", try await revocations.revokeDueProviderTokens())
        metrics.purged(report)
        return report
    }

    /// Deletes tokens that can no longer do anything: expired, and for an access token also past the refresh-token
    /// lifetime after its issue (until then Janrain's signed refresh still takes it). Also `capturectl token
    /// purge-expired`.
    public func purgeExpiredTokens() async throws -> Int {
        let now = time.now()
        return try await tokens.purge(expiredBefore: now, accessIssuedBefore: now - settings.refreshTokenLifetime)
    }

    /// Reads the outbox's queue length into `capture_mail_outbox_pending` and the provider tokens waiting to be revoked
    /// into `capture_provider_revocations_pending` (on each scrape of `/metrics`).
    public func recordQueueDepths() async throws {
        metrics.outboxPending(try await outbox.pendingCount())
        metrics.providerRevocationsPending(try await providerRevocations.pendingCount())
    }
}
