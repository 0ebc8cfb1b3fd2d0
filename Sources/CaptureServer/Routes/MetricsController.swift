import CaptureCore
import Hummingbird
import NIOCore
import Prometheus

/// `GET /metrics`: the registry in Prometheus' text format (version 0.0.4). Gauges read from the store (the
/// outbox's queue) are refreshed on each scrape. On the admin listener when there is one, else on the main one behind
/// an admin key (`metricsPublic` opens it).
struct MetricsController {
    let housekeeping: Housekeeping
    let registry: PrometheusCollectorRegistry

    func addRoutes(to router: some RouterMethods<CaptureRequestContext>) {
        router.get("/metrics") { _, _ in try await scrape() }
    }

    func scrape() async throws -> Response {
        try await housekeeping.recordQueueDepths()
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
    }
}

extension MetricsController {
    /// Mounts `/metrics` when `metricsEnabled` and the service records into a Prometheus registry.
    static func mount(on router: some RouterMethods<CaptureRequestContext>, features: CaptureFeatures) {
        guard features.settings.metricsEnabled, let registry = features.metrics.prometheusRegistry else { return }
        MetricsController(housekeeping: features.housekeeping, registry: registry).addRoutes(to: router)
    }
}
