import CaptureCore
import ServiceLifecycle

/// Runs the outbox's delivery loop beside the HTTP server; a graceful shutdown stops it between messages.
struct MailDeliveryService: Service {
    let delivery: MailDelivery

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await delivery.run()
        }
    }
}
