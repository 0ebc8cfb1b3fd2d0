import Hummingbird
import Logging

/// One line per request: method, path, the route it matched, status and duration. Never the query or the body,
/// where secrets may be. At `requestLogLevel` (debug by default: below the default `logLevel`), so the hot paths
/// neither time nor format a line per request unless the operator asks for it.
struct RequestLog {
    var level: Logger.Level = .debug

    /// Whether the request's logger writes lines at `level`.
    func isEnabled(for context: CaptureRequestContext) -> Bool { context.logger.logLevel <= level }

    func write(_ request: Request, _ context: CaptureRequestContext, status: Int, elapsed: Duration) {
        let parts = elapsed.components
        let milliseconds = Double(parts.seconds) * 1000 + Double(parts.attoseconds) / 1e15
        context.logger.log(
            level: level, "request",
            metadata: [
                "method": "\(request.method)", "path": "\(request.uri.path)", "route": "\(context.routeLabel)",
                "status": "\(status)", "duration_ms": "\((milliseconds * 1000).rounded() / 1000)",
            ])
    }
}
