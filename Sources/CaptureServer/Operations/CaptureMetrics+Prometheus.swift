import CaptureCore
import Prometheus

extension CaptureMetrics {
    /// Latency buckets for requests and database calls: most database calls take well under a millisecond.
    static let durationBuckets: [Duration] = [
        .microseconds(250), .microseconds(500), .milliseconds(1), .microseconds(2500), .milliseconds(5),
        .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250),
        .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10),
    ]

    /// Metrics recorded into `registry`, the one `GET /metrics` serves. Each application gets its own registry
    /// (tests build many in one process); only the server's entry point also bootstraps `MetricsSystem` with it.
    public static func prometheus(_ registry: PrometheusCollectorRegistry) -> CaptureMetrics {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = durationBuckets
        return CaptureMetrics(factory: factory)
    }

    /// The registry `/metrics` serves; nil when these metrics go to another backend (or nowhere).
    public var prometheusRegistry: PrometheusCollectorRegistry? { (factory as? PrometheusMetricsFactory)?.registry }
}
