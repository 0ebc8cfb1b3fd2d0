import CaptureCore
import Hummingbird

extension Router where Context == CaptureRequestContext {
    /// What operations adds to the router, outermost first: the request id (so every line of a request names it),
    /// the request metrics, and `GET /metrics`.
    func addOperations(service: CaptureService) {
        add(middleware: RequestIDMiddleware())
        add(middleware: HTTPMetricsMiddleware(metrics: service.metrics))
        MetricsController.mount(on: self, service: service)
    }
}
