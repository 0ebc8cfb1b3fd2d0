import Hummingbird

/// Strict CSP and friends on every response. `frame-src janrain:` lets the bridge signal its host.
struct SecurityHeadersMiddleware: RouterMiddleware {
    typealias Context = CaptureRequestContext

    static let contentSecurityPolicy = [
        "default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self' data:", "connect-src 'self'",
        "form-action 'self'", "frame-src janrain:", "base-uri 'none'", "frame-ancestors 'none'",
    ].joined(separator: "; ")

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            // Router-level failures (unknown route, wrong method) get the same headers.
            response = try error.response(from: request, context: context)
        }
        response.headers[.contentSecurityPolicy] = Self.contentSecurityPolicy
        response.headers[.referrerPolicy] = "no-referrer"
        response.headers[.xContentTypeOptions] = "nosniff"
        return response
    }
}
