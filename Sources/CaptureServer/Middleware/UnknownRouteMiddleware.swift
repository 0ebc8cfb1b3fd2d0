import CaptureCore
import Hummingbird

/// A request no route answers gets the contract's shape instead of an empty 404: Janrain's JSON error for API
/// callers (any POST, or a path under an API prefix), a small HTML page for a browser. The query is never echoed.
struct UnknownRouteMiddleware: RouterMiddleware {
    typealias Context = CaptureRequestContext

    static let apiPrefixes = ["/oauth/", "/entity", "/verify", "/admin/", "/.well-known/"]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound || error.status == .methodNotAllowed {
            let path = request.uri.path
            let isAPI = request.method == .post || Self.apiPrefixes.contains { path.hasPrefix($0) }
            guard isAPI else {
                return ErrorPage.response(
                    .notFound, status: .notFound, messages: context.language?.messages ?? Localization(catalogs: []).messages(for: nil),
                    detail: "There is no page at \(path).")
            }
            var response = Reply.captureError(
                .invalidArgument("path", "\(request.method) \(path) is not an endpoint of this service (Capture API calls are POST)"))
            response.status = .notFound
            return response
        }
    }
}
