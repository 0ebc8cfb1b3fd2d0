import CaptureCore
import Hummingbird

/// Everything the router does for every request, as one middleware: the request id, the reply's language, the reply
/// to a route that does not exist (or to any failure that reaches the router's edge), the request log line, the
/// request metrics and the security headers. Each concern is its own type; this only puts them in order.
///
/// One layer rather than one per concern: each middleware is a nested `async` call through Hummingbird's responder
/// chain, and each cost about 4 µs of server CPU per request here, a third of a bare route's time with six of them
/// (docs/adr/0038-hot-paths-without-hops.md).
struct RequestPipelineMiddleware: RouterMiddleware {
    typealias Context = CaptureRequestContext

    let headers: SecurityHeaders
    let log: RequestLog
    let metrics: RequestMetrics
    let localization: Localization

    init(features: CaptureFeatures) {
        headers = SecurityHeaders(settings: features.settings, proxies: features.proxies)
        log = RequestLog(level: features.settings.requestLogLevel)
        metrics = RequestMetrics(metrics: features.metrics)
        localization = features.catalog.localization
    }

    @concurrent func handle(
        _ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response
    ) async throws -> Response {
        let id = RequestID.of(request)
        var context = context
        context.logger[metadataKey: RequestID.metadataKey] = .string(id)
        // Before anything can fail: error pages and messages speak the request's language too.
        context.language = RequestLanguage(localization: localization, acceptLanguage: request.headers.value(.acceptLanguage))
        let clock = ContinuousClock()
        let start = clock.now
        var response: Response
        do {
            if request.method == .get || request.method == .head {
                response = try await next(request, context)
            } else {
                // A request that may write: its client, once its parameters are read, names the webhook events of
                // its changes (`ChangeOrigin`).
                response = try await ChangeOrigin.$current.withValue(ChangeOrigin()) { try await next(request, context) }
            }
        } catch {
            response = UnknownRoute.reply(to: error, request: request, context: context)
        }
        let elapsed = clock.now - start
        if log.isEnabled(for: context) { log.write(request, context, status: response.status.code, elapsed: elapsed) }
        metrics.record(request, context, status: response.status.code, duration: elapsed)
        headers.apply(to: &response, request: request, context: context)
        response.headers[RequestID.header] = id
        return response
    }
}
