import Hummingbird
import Logging

/// One line per request: method, path and status. Never the query or the body, where secrets may be. At
/// `requestLogLevel` (info by default), so a busy service can turn it down without losing its other lines.
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = CaptureRequestContext

    var level: Logger.Level = .info

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let response = try await next(request, context)
        context.logger.log(
            level: level, "request", metadata: ["method": "\(request.method)", "path": "\(request.uri.path)", "status": "\(response.status.code)"])
        return response
    }
}
