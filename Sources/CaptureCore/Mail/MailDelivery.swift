import Foundation
import Logging

/// Delivers the outbox through a transport, off the request path: due messages go out oldest first, a temporary
/// failure is retried with growing pauses, a permanent one (or the last retry) marks the message failed, and a body
/// is forgotten as soon as it is delivered or its code has expired. Logs name messages by id, never their bodies.
public struct MailDelivery: Sendable {
    /// Pauses after the 1st, 2nd, … failed attempt; after the last the message has failed for good.
    public static let retryPauses: [TimeInterval] = [30, 120, 600, 1800]
    /// How long a claimed message is left to the instance that claimed it: well past one transfer's timeout, so it is
    /// taken again only when that instance stopped before recording the outcome (then it is sent again: a message is
    /// delivered at least once, and twice only after such a crash).
    public static let claimLease: TimeInterval = 300
    /// How often the loop looks even when nothing woke it (retries come due while it sleeps).
    public static let pollInterval: Duration = .seconds(5)

    let service: CaptureService
    let transport: any MailTransport
    let logger: Logger

    public init(service: CaptureService, transport: any MailTransport, logger: Logger) {
        self.service = service
        self.transport = transport
        self.logger = logger
    }

    /// Delivers until the task is cancelled; wakes on `service.mailSignal` or every `pollInterval`.
    public func run() async {
        let signal = service.mailSignal
        while !Task.isCancelled {
            do {
                _ = try await deliverDue()
            } catch {
                logger.error("mail delivery pass failed", metadata: ["error": "\(String(reflecting: type(of: error)))"])
            }
            await withTaskGroup(of: Void.self) { group in
                group.addTask { for await _ in signal.stream { return } }
                group.addTask { try? await Task.sleep(for: Self.pollInterval) }
                await group.next()
                group.cancelAll()
            }
        }
    }

    /// One pass: forgets stale bodies, then attempts every message that is due. Returns how many were delivered.
    @discardableResult
    public func deliverDue(limit: Int = 50) async throws -> Int {
        let store = service.store.outbox
        var forgotten = try await store.forgetBodies(at: service.time.now())
        var delivered = 0
        // One message at a time, each claimed for `claimLease`: several instances deliver the same outbox without
        // sending a message twice, and a claim never outlasts its one delivery attempt.
        for _ in 0..<limit {
            let claimed = service.time.now()
            guard var entry = try await store.claimDue(at: claimed, lease: claimed + Self.claimLease, limit: 1).first
            else { break }
            let now = service.time.now()
            guard let text = entry.text, entry.bodyExpiresAt > now else {
                entry.status = .failed
                entry.lastError = "its code expired before it could be delivered"
                entry.text = nil
                entry.html = nil
                try await store.update(entry)
                forgotten += 1
                continue
            }
            let message = MailMessage(
                from: service.settings.mailFrom, to: entry.recipient, subject: entry.subject, text: text, html: entry.html,
                messageID: entry.messageID)
            entry.attempts += 1
            do {
                try await transport.deliver(message)
                entry.status = .sent
                entry.sentAt = service.time.now()
                entry.lastError = nil
                entry.text = nil
                entry.html = nil
                delivered += 1
                logger.info("mail delivered", metadata: ["outbox": "\(entry.id ?? 0)", "kind": "\(entry.kind.rawValue)"])
            } catch {
                entry.lastError = error.reason
                if error.isPermanent || entry.attempts > Self.retryPauses.count {
                    entry.status = .failed
                    entry.text = nil
                    entry.html = nil
                } else {
                    entry.nextAttemptAt = service.time.now() + Self.retryPauses[entry.attempts - 1]
                }
                logger.warning(
                    "mail delivery failed",
                    metadata: ["outbox": "\(entry.id ?? 0)", "attempt": "\(entry.attempts)", "status": "\(entry.status.rawValue)"])
            }
            if entry.text == nil { forgotten += 1 }
            try await store.update(entry)
        }
        if forgotten > 0 { try await store.scrub() }
        return delivered
    }
}
