import CaptureCore
import ServiceLifecycle

/// Runs the webhooks' delivery loop beside the HTTP server; a graceful shutdown stops it (an attempt cut short is
/// not counted, and its event is due again at the next start).
struct WebhookDeliveryService: Service {
    let delivery: WebhookDelivery

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await delivery.run()
        }
    }
}
