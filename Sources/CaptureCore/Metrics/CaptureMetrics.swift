import CoreMetrics
import Foundation

/// Every metric the service records, named in one place (docs/adr/0033-metrics-and-logs.md).
/// It records through a swift-metrics factory: Core, Store and the server name no backend; the server hands in the
/// Prometheus factory whose registry `/metrics` serves. Metrics are looked up by name and labels on each use (the
/// factory keeps one per series), except those of every request, every token check and every database call, which
/// are kept once made; copies of a value share what it keeps.
public struct CaptureMetrics: Sendable {
    public let factory: any MetricsFactory
    private let httpSeries = MadeSeries<HTTPLabels, (requests: CoreMetrics.Counter, duration: CoreMetrics.Timer)>()
    private let tokenCheckSeries = MadeSeries<Bool, Counter>(capacity: 2)
    private let databaseSeries = MadeSeries<DatabaseLabels, CoreMetrics.Timer>()

    public init(factory: any MetricsFactory) {
        self.factory = factory
    }

    private struct HTTPLabels: Hashable, Sendable {
        let route: String, method: String, status: Int
    }

    private struct DatabaseLabels: Hashable, Sendable {
        let repository: String, operation: String
    }

    /// Records into whatever `MetricsSystem` was bootstrapped with (nothing, unless a process bootstrapped it).
    public static var facade: CaptureMetrics { CaptureMetrics(factory: MetricsSystem.factory) }

    public enum Name {
        public static let httpRequests = "capture_http_requests_total"
        public static let httpDuration = "capture_http_request_duration_seconds"
        public static let signIns = "capture_sign_ins_total"
        public static let tokensIssued = "capture_tokens_issued_total"
        public static let tokensRevoked = "capture_tokens_revoked_total"
        public static let outboxPending = "capture_mail_outbox_pending"
        public static let providerRevocationsPending = "capture_provider_revocations_pending"
        public static let oldestWaitingMail = "capture_mail_oldest_waiting_seconds"
        public static let databaseDuration = "capture_db_call_duration_seconds"
        public static let purged = "capture_purged_rows_total"
        public static let tokenChecks = "capture_token_checks_total"
    }

    /// A token check on a store that keeps checks in memory (SQLite; PostgreSQL while its change notices are heard):
    /// answered from a kept check, or read.
    public func tokenCheck(kept: Bool) {
        tokenCheckSeries.series(kept) {
            Counter(label: Name.tokenChecks, dimensions: [("answer", kept ? "kept" : "read")], factory: factory)
        }.increment()
    }

    /// One answered HTTP request. `route` is the route's template (`/flows/{flow}`), never the path a caller sent.
    public func httpRequest(route: String, method: String, status: Int, duration: Duration) {
        let series = httpSeries.series(HTTPLabels(route: route, method: method, status: status)) {
            let labels = [("route", route), ("method", method), ("status", String(status))]
            return (
                Counter(label: Name.httpRequests, dimensions: labels, factory: factory),
                Timer(label: Name.httpDuration, dimensions: labels, factory: factory)
            )
        }
        series.requests.increment()
        series.duration.recordNanoseconds(duration.nanoseconds)
    }

    /// One sign-in attempt and how it ended.
    public func signIn(_ method: SignInMethod, _ outcome: SignInOutcome) {
        Counter(
            label: Name.signIns, dimensions: [("method", method.rawValue), ("outcome", outcome.rawValue)], factory: factory
        ).increment()
    }

    /// Tokens stored for callers (each record's kind).
    public func issued(_ records: [TokenRecord]) {
        issued(records.map(\.kind))
    }

    /// Tokens stored for callers, one kind each.
    public func issued(_ kinds: [TokenKind]) {
        for kind in TokenKind.allCases {
            let count = kinds.count { $0 == kind }
            if count > 0 {
                Counter(label: Name.tokensIssued, dimensions: [("kind", kind.rawValue)], factory: factory).increment(by: count)
            }
        }
    }

    /// Tokens newly revoked, by kind and why.
    public func revoked(_ tokens: RevokedTokens, _ reason: RevocationReason) {
        for (kind, count) in tokens.byKind {
            Counter(
                label: Name.tokensRevoked, dimensions: [("kind", kind.rawValue), ("reason", reason.rawValue)], factory: factory
            ).increment(by: count)
        }
    }

    /// Messages waiting in the outbox.
    public func outboxPending(_ count: Int) {
        Gauge(label: Name.outboxPending, factory: factory).record(count)
    }

    /// Provider refresh tokens waiting to be revoked (a deleted account's).
    public func providerRevocationsPending(_ count: Int) {
        Gauge(label: Name.providerRevocationsPending, factory: factory).record(count)
    }

    /// How long the oldest message still waiting for delivery has waited (0 when none waits), by the delivery pass.
    public func oldestWaitingMail(_ seconds: TimeInterval) {
        Gauge(label: Name.oldestWaitingMail, factory: factory).record(seconds)
    }

    /// One repository call: `repository` names the table group, `operation` the method.
    public func databaseCall(repository: String, operation: String, duration: Duration) {
        databaseSeries.series(DatabaseLabels(repository: repository, operation: operation)) {
            Timer(
                label: Name.databaseDuration, dimensions: [("repository", repository), ("operation", operation)],
                factory: factory)
        }.recordNanoseconds(duration.nanoseconds)
    }

    /// Rows a purge pass removed, by what they were.
    public func purged(_ report: PurgeReport) {
        for item in report.items where item.count > 0 {
            Counter(label: Name.purged, dimensions: [("what", item.name)], factory: factory).increment(by: item.count)
        }
    }
}

/// How a person signed in.
public enum SignInMethod: String, Sendable {
    case password
    case social
    case passkey
    case secondFactor = "second_factor"
}

/// How a sign-in attempt ended, as `capture_sign_ins_total{outcome}` reports it.
public enum SignInOutcome: String, Sendable {
    case success
    case wrongCredentials = "wrong_credentials"
    case throttled
    case deactivated
    case unverifiedEmail = "unverified_email"
    /// Social: the provider account has no user yet, or its address belongs to one (register or merge next).
    case needsAccount = "needs_account"
    /// The password was right; an authenticator or recovery code completes the sign-in.
    case needsSecondFactor = "needs_second_factor"
    /// The request could not be used: a bad form, client or flow.
    case invalidRequest = "invalid_request"
    case error

    public init(_ error: any Error) {
        switch error as? CaptureError {
        case .invalidCredentials, .invalidSecondFactor: self = .wrongCredentials
        case .secondFactorRequired: self = .needsSecondFactor
        case .rateLimited: self = .throttled
        case .accountDeactivated, .accountDeleted: self = .deactivated
        case .emailNotVerified: self = .unverifiedEmail
        case .registrationRequired, .mergeRequired: self = .needsAccount
        case .unexpected, .none: self = .error
        default: self = .invalidRequest
        }
    }
}

/// Why tokens were revoked.
public enum RevocationReason: String, Sendable {
    /// A caller's `/oauth/revoke` (sign-out).
    case signOut = "sign_out"
    /// A one-use token presented twice: its chain goes.
    case reuse
    case passwordChange = "password_change"
    case passwordReset = "password_reset"
    case accountDisabled = "account_disabled"
    case deviceReplaced = "device_replaced"
    /// The mailbox's first proof removed provider links its provider never vouched for (a pre-hijack ends).
    case unprovenLinkRemoved = "unproven_link_removed"
    /// The account's address changed: every other session ends.
    case addressChange = "address_change"
    /// An operator's revocation (`capturectl token revoke`, `client remove`; an admin API when it calls the same
    /// use cases in the server).
    case operatorAction = "operator"
    /// The person signed a session out from their list of sessions (`/sessions/end`, `/sessions/end_others`).
    case sessionEnded = "session_ended"
}

extension Duration {
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
