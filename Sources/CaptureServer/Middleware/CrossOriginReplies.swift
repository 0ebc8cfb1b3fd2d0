import CaptureCore
import Hummingbird

/// Replies a customer's own page may read (the drop-in loader's calls): a request from an origin a registered client
/// allows (`FlowPageService.allowsCrossOrigin`) is answered with `Access-Control-Allow-Origin` naming it, errors
/// included. The widget's calls are CORS-simple (form-encoded POSTs and GETs), so no preflight is answered; nothing
/// else is loosened, and which client a page may drive is still checked on every call.
///
/// Not a middleware of its own: its group's `ErrorReplyMiddleware` applies it, since each middleware layer is a
/// nested async call that costs a few µs on every request (docs/adr/0038-hot-paths-without-hops.md).
struct CrossOriginReplies: Sendable {
    private let publicOrigin: String
    private let allows: @Sendable (String) async throws -> Bool

    init(flowPages: FlowPageService, settings: ServiceSettings) {
        publicOrigin = settings.resolvedPublicOrigin
        allows = { origin in try await flowPages.allowsCrossOrigin(origin) }
    }

    /// The request's `Origin` when it is another one that a client allows; nil for the others (no header added).
    func allowedOrigin(of request: Request) async throws -> String? {
        guard let origin = request.headers.value(.origin), origin != publicOrigin, try await allows(origin) else {
            return nil
        }
        return origin
    }

    /// `response` readable by a page from `origin`.
    static func allow(_ origin: String, on response: inout Response) {
        response.headers[.accessControlAllowOrigin] = origin
        let vary = response.headers.value(.vary) ?? ""
        if !vary.lowercased().contains("origin") {
            response.headers[.vary] = vary.isEmpty ? "Origin" : vary + ", Origin"
        }
    }
}
