import Foundation
import Logging

/// Delivers the webhooks' outbox, off the request path: due events are claimed (the oldest pending one per
/// subscription and user, so each user's events arrive in order), signed (Standard Webhooks), posted through the
/// transport, and recorded with the attempt. A 2xx delivers; a 410 disables the subscription; anything else is tried
/// again on `WebhookSettings.retrySchedule` (a 429's or 503's `Retry-After` honoured) and fails when the schedule is
/// spent, kept for redelivery. A process stopped mid-delivery leaves its claims to expire: those events are tried
/// again (delivered at least once). Logs name events by id, never their payloads or secrets.
public struct WebhookDelivery: Sendable {
    /// How many events one pass posts at once (a hanging listener holds one slot, not the pass).
    public static let batch = 16

    let webhooks: any WebhookRepository
    let signal: MailSignal
    let time: any TimeSource
    let settings: WebhookSettings
    let codeKey: CodeKey
    let metrics: CaptureMetrics
    let transport: any WebhookTransport
    let logger: Logger

    public init(features: CaptureFeatures, transport: any WebhookTransport, logger: Logger) {
        webhooks = features.store.webhooks
        signal = features.webhookSignal
        time = features.time
        settings = features.settings.webhooks
        codeKey = features.codeKey
        metrics = features.metrics
        self.transport = transport
        self.logger = logger
    }

    /// How long a claimed event is left to the instance that claimed it: past one transfer's timeout, so it is taken
    /// again only when that instance stopped before recording the outcome.
    var lease: TimeInterval { settings.totalTimeoutSeconds * 2 + 5 }

    /// Delivers until the task is cancelled; wakes on `signal` or every `pollSeconds`.
    public func run() async {
        let wakeUps = signal.listen()
        let poll = Duration.milliseconds(Int64(settings.pollSeconds * 1000))
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [signal = signal] in
                while (try? await Task.sleep(for: poll)) != nil { signal.wake() }
            }
            var purged = Date.distantPast
            await pass()
            for await _ in wakeUps {
                await pass()
                // Delivered and failed events past the retention go, once an hour.
                if time.now().timeIntervalSince(purged) > 3600 {
                    purged = time.now()
                    do {
                        let count = try await webhooks.purge(before: purged - settings.retentionDays * 86400)
                        if count > 0 { logger.info("webhook events purged", metadata: ["count": "\(count)"]) }
                    } catch {
                        logger.error("webhook purge failed", metadata: ["error": "\(String(reflecting: type(of: error)))"])
                    }
                }
            }
            group.cancelAll()
        }
    }

    private func pass() async {
        do {
            while try await deliverDue() == Self.batch, !Task.isCancelled {}
            try await recordBacklog()
        } catch {
            logger.error("webhook delivery pass failed", metadata: ["error": "\(String(reflecting: type(of: error)))"])
        }
    }

    /// Claims up to `batch` due events and delivers them at once; returns how many were claimed.
    @discardableResult
    public func deliverDue() async throws -> Int {
        let now = time.now()
        let claimed = try await webhooks.claimDue(at: now, lease: now + lease, limit: Self.batch)
        guard !claimed.isEmpty else { return 0 }
        var subscriptions: [String: WebhookSubscription] = [:]
        for subscription in try await webhooks.subscriptions() { subscriptions[subscription.id] = subscription }
        await withTaskGroup(of: Void.self) { group in
            for event in claimed {
                guard let subscription = subscriptions[event.subscriptionID] else { continue }
                group.addTask {
                    do {
                        try await deliver(event, to: subscription)
                    } catch {
                        logger.error(
                            "webhook attempt not recorded",
                            metadata: ["event": "\(event.id)", "error": "\(String(reflecting: type(of: error)))"])
                    }
                }
            }
        }
        return claimed.count
    }

    /// The request `event` is posted as, signed with every live secret of `subscription`.
    public func request(for event: WebhookEvent, to subscription: WebhookSubscription, at now: Date) -> WebhookRequest {
        let secrets = subscription.sealedSecrets(at: now).compactMap { codeKey.unseal($0) }.map {
            String(decoding: $0, as: UTF8.self)
        }
        let timestamp = Int64(now.timeIntervalSince1970)
        return WebhookRequest(
            url: subscription.endpoint,
            headers: [
                ("content-type", "application/json"), ("user-agent", "capture-bridge-webhooks/1"),
                ("webhook-id", event.id), ("webhook-timestamp", String(timestamp)),
                (
                    "webhook-signature",
                    WebhookSignature.header(id: event.id, timestamp: timestamp, body: event.payload, secrets: secrets)
                ),
            ],
            body: event.payload, connectTimeoutSeconds: settings.connectTimeoutSeconds,
            totalTimeoutSeconds: settings.totalTimeoutSeconds, allowsPlainHTTP: settings.allowPlainHTTP)
    }

    func deliver(_ claimed: WebhookEvent, to subscription: WebhookSubscription) async throws {
        var event = claimed
        let started = time.now()
        let clock = ContinuousClock()
        let start = clock.now
        let response = await transport.post(request(for: event, to: subscription, at: started))
        let elapsed = clock.now - start
        let milliseconds = Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)
        if Task.isCancelled, response.status == nil {
            // Stopped mid-transfer (a shutdown): not an attempt; due again at the next start.
            event.nextAttemptAt = Date(timeIntervalSince1970: 0)
            try await webhooks.finish(
                event,
                attempt: WebhookAttempt(
                    eventSequence: event.sequence ?? 0, at: started, status: nil, milliseconds: milliseconds,
                    error: "stopped by a shutdown"))
            return
        }
        event.attempts += 1
        let now = time.now()
        let error: String?
        switch response.status {
        case .some(200...299):
            error = nil
            event.status = .delivered
            event.deliveredAt = now
            event.lastError = nil
            metrics.webhookDelivered(outcome: "delivered")
        case .some(410):
            error = "410 Gone: the listener asked to stop; the subscription is disabled"
            event.status = .failed
            event.lastError = error
            metrics.webhookDelivered(outcome: "gone")
        default:
            let failure = response.status.map { "HTTP \($0)" } ?? (response.error ?? "no response")
            error = failure
            event.lastError = failure
            if let pause = WebhookSchedule.pause(
                afterAttempt: event.attempts, schedule: settings.retrySchedule, status: response.status,
                retryAfter: response.retryAfter, now: now)
            {
                event.nextAttemptAt = now + pause
                metrics.webhookDelivered(outcome: "retry")
            } else {
                event.status = .failed
                metrics.webhookDelivered(outcome: "failed")
            }
        }
        try await webhooks.finish(
            event,
            attempt: WebhookAttempt(
                eventSequence: event.sequence ?? 0, at: started, status: response.status, milliseconds: milliseconds,
                error: error))
        if response.status == 410 {
            try await webhooks.disable(subscriptionID: subscription.id, reason: "the listener answered 410 Gone", at: now)
            logger.warning(
                "webhook subscription disabled: its listener answered 410", metadata: ["subscription": "\(subscription.id)"])
        }
        logger.info(
            "webhook attempt",
            metadata: [
                "event": "\(event.id)", "subscription": "\(subscription.id)", "type": "\(event.type.rawValue)",
                "status": "\(response.status.map(String.init) ?? "none")", "outcome": "\(event.status.rawValue)",
                "attempt": "\(event.attempts)",
            ])
    }

    /// The gauges: pending events, failed ones kept, and how long the oldest pending one has waited.
    public func recordBacklog() async throws {
        let backlog = try await webhooks.backlog()
        metrics.webhookBacklog(
            pending: backlog.pending, failed: backlog.failed,
            oldestSeconds: backlog.oldestPending.map { max(0, time.now().timeIntervalSince($0)) } ?? 0)
    }
}
