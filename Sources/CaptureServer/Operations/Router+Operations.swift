import CaptureCore
import Hummingbird

extension Router where Context == CaptureRequestContext {
    /// What operations adds to the router, outermost first: the request id (so every line of a request names it)
    /// and the request metrics. `GET /metrics` is mounted with the problem-details routes (`MetricsController`).
    func addOperations(service: CaptureService) {
        add(middleware: RequestIDMiddleware())
        add(middleware: HTTPMetricsMiddleware(metrics: service.metrics))
    }
}
