import CoreMetrics
import Foundation

extension CaptureMetrics.Name {
    public static let webhookAttempts = "capture_webhook_attempts_total"
    public static let webhookPending = "capture_webhook_events_pending"
    public static let webhookFailed = "capture_webhook_events_failed"
    public static let webhookOldestPending = "capture_webhook_oldest_pending_seconds"
}

extension CaptureMetrics {
    /// One delivery attempt, by its outcome: `delivered`, `retry`, `failed` (the schedule spent) or `gone` (a 410).
    public func webhookDelivered(outcome: String) {
        Counter(label: Name.webhookAttempts, dimensions: [("outcome", outcome)], factory: factory).increment()
    }

    /// The webhooks' outbox: pending events, failed ones kept for redelivery, the oldest pending one's wait.
    public func webhookBacklog(pending: Int, failed: Int, oldestSeconds: TimeInterval) {
        Gauge(label: Name.webhookPending, factory: factory).record(pending)
        Gauge(label: Name.webhookFailed, factory: factory).record(failed)
        Gauge(label: Name.webhookOldestPending, factory: factory).record(oldestSeconds)
    }
}
