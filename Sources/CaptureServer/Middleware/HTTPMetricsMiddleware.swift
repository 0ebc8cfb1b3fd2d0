import CaptureCore
import Hummingbird

/// Counts and times every request by route template (`/flows/{flow}`, never the path a caller sent), method and
/// status. A path no route matches is the route `unknown`, and an unusual method `OTHER`: labels stay few whatever
/// callers send.
struct HTTPMetricsMiddleware: RouterMiddleware {
    typealias Context = CaptureRequestContext

    static let methods: Set<HTTPRequest.Method> = [.get, .head, .post, .put, .delete, .patch, .options]

    let metrics: CaptureMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let clock = ContinuousClock()
        let start = clock.now
        do {
            let response = try await next(request, context)
            record(request, context, status: response.status.code, duration: clock.now - start)
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            record(request, context, status: status, duration: clock.now - start)
            throw error
        }
    }

    private func record(_ request: Request, _ context: Context, status: Int, duration: Duration) {
        let route = context.endpointPath.flatMap { $0 == "NotFound" ? nil : $0 } ?? "unknown"
        let method = Self.methods.contains(request.method) ? request.method.rawValue : "OTHER"
        metrics.httpRequest(route: route, method: method, status: status, duration: duration)
    }
}
