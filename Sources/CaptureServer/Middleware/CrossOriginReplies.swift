import CaptureCore
import Hummingbird

/// Replies a customer's own page may read (the drop-in loader's calls): a request from an origin a registered client
/// allows (`CaptureService.allowsCrossOrigin`) is answered with `Access-Control-Allow-Origin` naming it, errors
/// included. The widget's calls are CORS-simple (form-encoded POSTs and GETs), so no preflight is answered; nothing
/// else is loosened, and which client a page may drive is still checked on every call.
struct CrossOriginReplies: RouterMiddleware {
    typealias Context = CaptureRequestContext
    let service: CaptureService

    @concurrent func handle(
        _ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard let origin = request.headers.value(.origin), origin != service.settings.resolvedPublicOrigin,
            try await service.allowsCrossOrigin(origin)
        else { return try await next(request, context) }
        var response = try await next(request, context)
        response.headers[.accessControlAllowOrigin] = origin
        let vary = response.headers.value(.vary) ?? ""
        if !vary.lowercased().contains("origin") {
            response.headers[.vary] = vary.isEmpty ? "Origin" : vary + ", Origin"
        }
        return response
    }
}
