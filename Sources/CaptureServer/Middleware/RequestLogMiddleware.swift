import Hummingbird
import Logging

/// One line per request: method, path and status. Never the query or the body, where secrets may be.
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = CaptureRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let response = try await next(request, context)
        context.logger.info(
            "request", metadata: ["method": "\(request.method)", "path": "\(request.uri.path)", "status": "\(response.status.code)"])
        return response
    }
}
