import Foundation

/// Who did something: an admin API key (by its public id), an operator at `capturectl` on the database file, a
/// client on Janrain's server API (`clients/*`, `settings/*`, by its id), or the service itself (security events).
public enum AuditActor: Sendable, Equatable, CustomStringConvertible {
    case adminKey(String)
    case capturectl(String)
    /// A client calling Janrain's server API (`clients/*`, `settings/*`, record writes), by its id.
    case client(String)
    case service

    public var description: String {
        switch self {
        case .adminKey(let id): "admin-key:\(id)"
        case .capturectl(let user): "capturectl:\(user)"
        case .client(let id): "client:\(id)"
        case .service: "service"
        }
    }

    /// capturectl run by the operating-system user running this process.
    public static var currentOperator: AuditActor {
        .capturectl(ProcessInfo.processInfo.environment["USER"] ?? ProcessInfo.processInfo.userName)
    }
}

/// One row of the audit log: time, actor, action, target and outcome. Never a secret: targets are ids, addresses
/// and fingerprints, outcomes are Janrain error names.
public struct AuditEntry: Sendable, Equatable {
    public var id: Int64?
    public var at: Date
    public var actor: String
    /// Dotted verb, e.g. `token.revoke`, `user.disable`, `client.rotate_secret`, `signin.burst`.
    public var action: String
    public var target: String
    /// `success`, or the error name of the refusal (`record_not_found`, `access_denied`, …).
    public var outcome: String
    /// A few words for the reader (counts, the refusal's description); no secrets.
    public var detail: String?

    public init(
        id: Int64? = nil, at: Date, actor: String, action: String, target: String, outcome: String, detail: String? = nil
    ) {
        self.id = id
        self.at = at
        self.actor = actor
        self.action = action
        self.target = target
        self.outcome = outcome
        self.detail = detail
    }

    public static let success = "success"
}

/// Which audit rows to read, newest first.
public struct AuditFilter: Sendable, Equatable {
    public var actor: String?
    public var action: String?
    public var target: String?
    public var page: Page

    public init(actor: String? = nil, action: String? = nil, target: String? = nil, page: Page = Page()) {
        self.actor = actor
        self.action = action
        self.target = target
        self.page = page
    }
}

/// Storage of the audit log.
public protocol AuditRepository: Sendable {
    func append(_ entry: AuditEntry) async throws
    func list(_ filter: AuditFilter) async throws -> [AuditEntry]
    /// Deletes rows older than `cutoff`; returns how many.
    func purge(before cutoff: Date) async throws -> Int
}
