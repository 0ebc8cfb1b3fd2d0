import CaptureCore
import Hummingbird

/// Liveness (the process answers) and readiness (database reachable, settings loaded).
struct HealthController {
    let store: Repositories

    func addRoutes(to router: some RouterMethods<CaptureRequestContext>) {
        router.get("/health/live") { _, _ in Reply.json(["status": "live"]) }
        router.get("/health/ready") { _, _ in
            await store.isReady()
                ? Reply.json(["status": "ready"])
                : Reply.json(["status": "unavailable", "reason": "database unreachable"], status: .serviceUnavailable)
        }
    }
}
