import Hummingbird
import Logging

/// One line per request: method, path, the route it matched, status and duration. Never the query or the body,
/// where secrets may be. At `requestLogLevel` (debug by default: below the default `logLevel`), so the hot paths
/// neither time nor format a line per request unless the operator asks for it.
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = CaptureRequestContext

    var level: Logger.Level = .debug

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard context.logger.logLevel <= level else { return try await next(request, context) }
        let clock = ContinuousClock()
        let start = clock.now
        let response = try await next(request, context)
        let elapsed = (clock.now - start).components
        let milliseconds = Double(elapsed.seconds) * 1000 + Double(elapsed.attoseconds) / 1e15
        context.logger.log(
            level: level, "request",
            metadata: [
                "method": "\(request.method)", "path": "\(request.uri.path)",
                "route": "\(context.endpointPath.flatMap { $0 == "NotFound" ? nil : $0 } ?? "unknown")",
                "status": "\(response.status.code)", "duration_ms": "\((milliseconds * 1000).rounded() / 1000)",
            ])
        return response
    }
}
