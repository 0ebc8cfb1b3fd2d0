import Foundation

/// What `capturectl mail retry` did.
public struct MailRetry: Sendable, Equatable {
    /// The message, due now.
    public var entry: OutboxEntry
    /// Other messages that were waiting for the relay and are due now with it.
    public var othersResumed: Int
    /// The relay's failure the outbox was waiting out, if it was.
    public var relayError: String?
    /// Whether this service has an SMTP relay at all (without one, nothing sends any message).
    public var relayConfigured: Bool
}

extension AdminService {
    /// `capturectl mail list`: newest first.
    public func listMail(limit: Int = 100) async throws -> [OutboxEntry] {
        try await outbox.list(limit: limit)
    }

    public func findMail(_ id: Int64) async throws -> OutboxEntry {
        guard let entry = try await outbox.find(id: id) else { throw CaptureError.recordNotFound("message \(id)") }
        return entry
    }

    /// `capturectl mail retry`: a failed or waiting message is due again now, while its body (and code) lives. If the
    /// outbox was waiting for the relay, every deferred message is due now too: retrying means trying the relay.
    /// A refusal says what is true: delivered (when), suppressed, or its code expired (when).
    @discardableResult
    public func retryMail(_ id: Int64) async throws -> MailRetry {
        var entry = try await findMail(id)
        let now = time.now()
        switch entry.status {
        case .sent:
            let when = entry.sentAt.map { " at \(AdminDocuments.iso($0))" } ?? ""
            throw CaptureError.notPermitted("message \(id) was delivered\(when); there is nothing to resend")
        case .suppressed:
            throw CaptureError.notPermitted(
                "message \(id) is suppressed (asked for an address with no live account); there is nothing to resend")
        case .pending, .deferred, .failed:
            break
        }
        guard entry.bodyExpiresAt > now else {
            throw CaptureError.notPermitted(
                "message \(id)'s code expired at \(AdminDocuments.iso(entry.bodyExpiresAt)); ask for a new one instead")
        }
        guard entry.text != nil else {
            // Only a message failed by an older version (which cleared a body on failure) gets here.
            throw CaptureError.notPermitted(
                "message \(id)'s text was cleared when it failed, though its code is valid until "
                    + "\(AdminDocuments.iso(entry.bodyExpiresAt)); ask for a new one instead")
        }
        let wasDeferred = entry.status == .deferred
        let relayError = wasDeferred ? entry.lastError : nil
        let resumed = try await outbox.resumeDeferred(at: now, relayWorks: false)
        entry.status = .pending
        entry.nextAttemptAt = now
        try await outbox.update(entry)
        mailSignal.wake()
        return MailRetry(
            entry: entry, othersResumed: max(0, resumed - (wasDeferred ? 1 : 0)), relayError: relayError,
            relayConfigured: settings.smtp != nil)
    }
}
