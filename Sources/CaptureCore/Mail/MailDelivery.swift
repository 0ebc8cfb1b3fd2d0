import Foundation
import Logging

/// Whom a failed delivery attempt concerns.
public enum MailFailureScope: String, Sendable, Equatable {
    /// The relay: no connection, a timeout, TLS, the login, a refusal of the sender, of the data or of anything else
    /// not about this recipient. Every waiting message waits for the relay; none fails for it.
    case relay
    /// This message alone: its recipient refused (`isPermanent`: the message fails) or deferred (it waits alone), or
    /// a message that cannot be built (permanent).
    case message
}

/// A failed attempt and whom it concerns.
public struct MailAttemptFailure: Error, Sendable, Equatable {
    public var error: MailDeliveryError
    public var scope: MailFailureScope

    public init(_ error: MailDeliveryError, scope: MailFailureScope) {
        self.error = error
        self.scope = scope
    }

    /// How the failure of a transport that only says `isPermanent` is read: a permanent one is the message's, any
    /// other the relay's (so nothing fails that waiting could have sent).
    public init(_ error: MailDeliveryError) {
        self.init(error, scope: error.isPermanent ? .message : .relay)
    }
}

/// A transport that tells the relay's failures from one message's (SMTP does: it knows which command was refused).
public protocol ScopedMailTransport: MailTransport {
    /// One attempt, as `deliver`, saying whom a failure concerns.
    func attempt(_ message: MailMessage) async throws(MailAttemptFailure)
}

/// Delivers the outbox through a transport, off the request path, oldest due message first. A message waits until it
/// can be sent:
/// - the relay failing (no connection, TLS, the login, a refusal not about the recipient) defers the whole outbox:
///   every waiting message becomes `deferred`, and nothing is tried (not even a message recorded since) until a pause
///   that grows with each failure in a row (`relayPauses`) has passed; a start of the service, `capturectl mail
///   retry` and a delivery that works make every deferred message due at once;
/// - the relay deferring this recipient (a 4xx to RCPT TO) makes this message alone wait (`retryPauses`);
/// - only the relay refusing this recipient (a 5xx to RCPT TO), or a message that cannot be built, fails it.
/// No message fails for the number of its attempts. A body is kept until it is delivered or its code expires; a
/// message still waiting when its code expires fails with that reason. Logs name messages by id, never their bodies.
public struct MailDelivery: Sendable {
    /// Pauses of a message whose recipient the relay deferred, after its 1st, 2nd, … such attempt; the last repeats.
    public static let retryPauses: [TimeInterval] = [30, 120, 600, 1800]
    /// Pauses of the whole outbox after the relay's 1st, 2nd, … failure in a row; the last repeats. Growing as
    /// `retryPauses` do, but capped at 10 minutes: a reset code lives 30, and a relay that comes back should not find
    /// its codes expired while the outbox sleeps. A few attempts an hour are no load for a relay, nor enough failed
    /// logins to get the service locked out.
    public static let relayPauses: [TimeInterval] = [30, 120, 600]
    /// How long a claimed message is left to the instance that claimed it: well past one transfer's timeout, so it is
    /// taken again only when that instance stopped before recording the outcome (then it is sent again: a message is
    /// delivered at least once, and twice only after such a crash).
    public static let claimLease: TimeInterval = 300
    /// How often the loop looks even when nothing woke it (retries come due while it sleeps).
    public static let pollInterval: Duration = .seconds(5)
    /// The reason a waiting message fails with when its code expired first.
    public static let expiredBeforeDelivery = "its code expired before it could be delivered"

    /// The pause after the `run`th failure in a row (from 1), the last of `pauses` repeating.
    public static func pause(after run: Int, in pauses: [TimeInterval]) -> TimeInterval {
        guard !pauses.isEmpty else { return 0 }
        return pauses[min(max(run, 1), pauses.count) - 1]
    }

    let outbox: any OutboxRepository
    let signal: MailSignal
    let time: any TimeSource
    let mailFrom: String
    let metrics: CaptureMetrics
    let transport: any MailTransport
    let logger: Logger
    let poll: Duration

    /// Delivers `features`' outbox (its store, mail signal, clock, sender address and metrics) through `transport`.
    public init(features: CaptureFeatures, transport: any MailTransport, logger: Logger, poll: Duration = pollInterval) {
        outbox = features.store.outbox
        signal = features.mailSignal
        time = features.time
        mailFrom = features.settings.mailFrom
        metrics = features.metrics
        self.transport = transport
        self.logger = logger
        self.poll = poll
    }

    /// Delivers until the task is cancelled; wakes on `signal` or every `poll`. It starts by
    /// making every deferred message due: a start is often the fix (a corrected relay password), and one attempt tells.
    public func run() async {
        do {
            let resumed = try await resumeDeferred()
            if resumed > 0 { logger.info("mail delivery starts: trying the relay again", metadata: ["deferred": "\(resumed)"]) }
        } catch {
            logger.error(
                "mail delivery could not resume deferred mail", metadata: ["error": "\(String(reflecting: type(of: error)))"])
        }
        let wakeUps = signal.listen()
        await withTaskGroup(of: Void.self) { group in
            // The poll is one more wake-up: a sleeping task sends it, so the loop only ever waits on `wakeUps`.
            group.addTask { [signal = signal, poll] in
                while (try? await Task.sleep(for: poll)) != nil { signal.wake() }
            }
            await pass()
            for await _ in wakeUps { await pass() }
            group.cancelAll()
        }
    }

    private func pass() async {
        do {
            _ = try await deliverDue()
        } catch {
            logger.error("mail delivery pass failed", metadata: ["error": "\(String(reflecting: type(of: error)))"])
        }
    }

    /// Makes every message waiting for the relay due now (as a start of the service does). Returns how many.
    @discardableResult
    public func resumeDeferred() async throws -> Int {
        try await outbox.resumeDeferred(at: time.now(), relayWorks: false)
    }

    /// One pass: fails waiting messages whose code expired and forgets stale bodies, then, unless the outbox waits for
    /// the relay, attempts every message that is due; last, records the age of the oldest waiting message. Returns
    /// how many were delivered.
    @discardableResult
    public func deliverDue(limit: Int = 50) async throws -> Int {
        let store = outbox
        var forgotten = try await store.forgetBodies(at: time.now())
        var delivered = 0
        var relayWorked = false
        if let until = try await store.relayPausedUntil(), until > time.now() {
            // Waiting for the relay: nothing is tried, not even a message recorded since (no failed login per message).
        } else {
            // One message at a time, each claimed for `claimLease`: several instances deliver the same outbox without
            // sending a message twice, and a claim never outlasts its one delivery attempt.
            for _ in 0..<limit {
                let claimed = time.now()
                guard var entry = try await store.claimDue(at: claimed, lease: claimed + Self.claimLease, limit: 1).first
                else { break }
                guard let text = entry.text, entry.bodyExpiresAt > time.now() else {
                    entry.status = .failed
                    entry.lastError = Self.expiredBeforeDelivery + (entry.lastError.map { " (it waited: \($0))" } ?? "")
                    entry.forgetBody()
                    try await store.update(entry)
                    forgotten += 1
                    continue
                }
                let message = MailMessage(
                    from: mailFrom, to: entry.recipient, subject: entry.subject, text: text,
                    html: entry.html, messageID: entry.messageID)
                entry.attempts += 1
                guard let failure = await attempt(message) else {
                    entry.status = .sent
                    entry.sentAt = time.now()
                    entry.lastError = nil
                    entry.deferrals = 0
                    entry.forgetBody()
                    try await store.update(entry)
                    forgotten += 1
                    delivered += 1
                    logger.info("mail delivered", metadata: ["outbox": "\(entry.id ?? 0)", "kind": "\(entry.kind.rawValue)"])
                    if !relayWorked {
                        // The relay works: what waited for it goes now, and its pauses start again from the first.
                        relayWorked = true
                        let resumed = try await store.resumeDeferred(at: time.now(), relayWorks: true)
                        if resumed > 0 { logger.info("the SMTP relay works again", metadata: ["deferred": "\(resumed)"]) }
                    }
                    continue
                }
                if Task.isCancelled {
                    // Stopped mid-transfer (a shutdown): not an attempt; the message is due again for the next start.
                    entry.attempts -= 1
                    entry.nextAttemptAt = time.now()
                    try await store.update(entry)
                    break
                }
                entry.lastError = failure.error.reason
                switch failure.scope {
                case .message where failure.error.isPermanent:
                    // The body stays until its code expires: `capturectl mail retry` can still send it.
                    entry.status = .failed
                    try await store.update(entry)
                    logger.warning(
                        "mail refused for its recipient",
                        metadata: ["outbox": "\(entry.id ?? 0)", "attempt": "\(entry.attempts)", "status": "failed"])
                case .message:
                    entry.status = .pending
                    entry.nextAttemptAt = time.now() + Self.pause(after: entry.attempts, in: Self.retryPauses)
                    try await store.update(entry)
                    logger.warning(
                        "mail deferred for its recipient",
                        metadata: ["outbox": "\(entry.id ?? 0)", "attempt": "\(entry.attempts)", "status": "pending"])
                case .relay:
                    let now = time.now()
                    entry.nextAttemptAt = now
                    try await store.update(entry)
                    let until = try await store.deferWaiting(
                        because: failure.error.reason, at: now, pauses: Self.relayPauses)
                    // The reason names the relay's failure (its reply, libcurl's diagnostic): never a body or password.
                    logger.warning(
                        "the SMTP relay failed; every waiting message is deferred",
                        metadata: [
                            "outbox": "\(entry.id ?? 0)", "reason": "\(failure.error.reason)",
                            "retry_in_seconds": "\(Int(until.timeIntervalSince(now)))",
                        ])
                }
                if failure.scope == .relay { break }
            }
        }
        if forgotten > 0 { try await store.scrub() }
        let oldest = try await store.oldestWaiting()
        metrics.oldestWaitingMail(oldest.map { max(0, time.now().timeIntervalSince($0)) } ?? 0)
        return delivered
    }

    /// One attempt through the transport, `nil` when it was delivered.
    private func attempt(_ message: MailMessage) async -> MailAttemptFailure? {
        if let scoped = transport as? any ScopedMailTransport {
            do throws(MailAttemptFailure) {
                try await scoped.attempt(message)
                return nil
            } catch { return error }
        }
        do throws(MailDeliveryError) {
            try await transport.deliver(message)
            return nil
        } catch { return MailAttemptFailure(error) }
    }
}
