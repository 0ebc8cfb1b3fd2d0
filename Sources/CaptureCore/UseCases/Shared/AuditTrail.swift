import Foundation

/// The audit log: operators' actions and the security events the service notices.
public struct AuditTrail: Sendable {
    let log: any AuditRepository
    let time: any TimeSource
    let settings: ServiceSettings
}

extension AuditTrail {
    /// Runs an operator's action and writes its audit row: `success`, or the refusal's error name (and the refusal
    /// is rethrown). The row is written after the action, so it records what happened, not what was tried.
    @discardableResult
    public func audited<T: Sendable>(
        _ action: String, target: String, by actor: AuditActor, detail: (T) -> String? = { _ in nil },
        _ body: () async throws -> T
    ) async throws -> T {
        do {
            let result = try await body()
            try await record(action, target: target, by: actor, outcome: AuditEntry.success, detail: detail(result))
            return result
        } catch {
            let refusal = CaptureError(error)
            try? await record(action, target: target, by: actor, outcome: refusal.error, detail: refusal.errorDescription)
            throw error
        }
    }

    /// A security event the service itself notices (sign-in bursts, token reuse, password resets). Never fails the
    /// request that caused it: a lost audit row is logged by the caller's error path, not shown to the user.
    /// With `oncePer`, an event already recorded for the target within that many seconds is not recorded again: a
    /// burst of refused attempts is one row, so an attacker cannot flood the log.
    public func recordSecurityEvent(
        _ action: String, target: String, outcome: String = AuditEntry.success, detail: String? = nil,
        oncePer window: TimeInterval? = nil
    ) async {
        if let window,
            let last = try? await log.list(AuditFilter(action: action, target: target, page: Page(limit: 1))).first,
            last.at > time.now().addingTimeInterval(-window)
        {
            return
        }
        try? await record(action, target: target, by: .service, outcome: outcome, detail: detail)
    }

    public func auditLog(_ filter: AuditFilter) async throws -> [AuditEntry] {
        try await log.list(filter)
    }

    /// Deletes audit rows older than the retention setting; returns how many.
    public func purgeAuditLog() async throws -> Int {
        guard settings.auditRetentionDays > 0 else { return 0 }
        return try await log.purge(before: time.now().addingTimeInterval(-settings.auditRetentionDays * 86400))
    }

    func record(_ action: String, target: String, by actor: AuditActor, outcome: String, detail: String?) async throws {
        try await log.append(
            AuditEntry(at: time.now(), actor: actor.description, action: action, target: target, outcome: outcome, detail: detail)
        )
    }
}
