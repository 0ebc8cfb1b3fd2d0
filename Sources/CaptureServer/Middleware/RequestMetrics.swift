import CaptureCore
import Hummingbird

/// Counts and times every request by route template (`/flows/{flow}`, never the path a caller sent), method and
/// status. A path no route matches is the route `unknown`, and an unusual method `OTHER`: labels stay few whatever
/// callers send.
struct RequestMetrics {
    static let methods: Set<HTTPRequest.Method> = [.get, .head, .post, .put, .delete, .patch, .options]

    let metrics: CaptureMetrics

    func record(_ request: Request, _ context: CaptureRequestContext, status: Int, duration: Duration) {
        let method = Self.methods.contains(request.method) ? request.method.rawValue : "OTHER"
        metrics.httpRequest(route: context.routeLabel, method: method, status: status, duration: duration)
    }
}

extension CaptureRequestContext {
    /// The template of the route that answered, `unknown` when none did (for metrics and the request log).
    var routeLabel: String { endpointPath.flatMap { $0 == "NotFound" ? nil : $0 } ?? "unknown" }
}
