import CaptureCore
import Hummingbird
import NIOCore
import Prometheus

/// `GET /metrics`: the registry in Prometheus' text format (version 0.0.4). Gauges read from the store (the
/// outbox's queue) are refreshed on each scrape. Generic over the context so an admin listener can mount it too.
struct MetricsController {
    let service: CaptureService
    let registry: PrometheusCollectorRegistry

    func addRoutes<Context: RequestContext>(to router: Router<Context>) {
        router.get("/metrics") { _, _ in try await scrape() }
    }

    func scrape() async throws -> Response {
        try await service.recordOutboxDepth()
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
    }
}

extension MetricsController {
    /// Mounts `/metrics` when `metricsEnabled` and the service records into a Prometheus registry.
    static func mount<Context: RequestContext>(on router: Router<Context>, service: CaptureService) {
        guard service.settings.metricsEnabled, let registry = service.metrics.prometheusRegistry else { return }
        MetricsController(service: service, registry: registry).addRoutes(to: router)
    }
}
