import CaptureCore
import CoreMetrics
import Logging
import Prometheus

/// The process-wide logging and metrics back-ends, chosen from the settings. Both systems may be bootstrapped only
/// once per process, so only the server's entry point calls this; tests hand each application its own logger and
/// registry instead.
public enum ServerObservability {
    /// Bootstraps swift-log (`logFormat`, `logLevel`) and swift-metrics (a Prometheus registry, returned for
    /// `CaptureServerMain.run`), and returns the server's logger.
    public static func bootstrap(settings: ServiceSettings) -> (logger: Logger, registry: PrometheusCollectorRegistry) {
        let level = settings.logLevel
        switch settings.logFormat {
        case .text:
            LoggingSystem.bootstrap { label in
                var handler = StreamLogHandler.standardError(label: label)
                handler.logLevel = level
                return handler
            }
        case .json:
            LoggingSystem.bootstrap { label in
                JSONLogHandler(label: label, level: level)
            }
        }
        let registry = PrometheusCollectorRegistry()
        // Libraries that record through the facade land in the same registry /metrics serves.
        MetricsSystem.bootstrap(CaptureMetrics.prometheus(registry).factory)
        return (Logger(label: "capture-server"), registry)
    }
}
