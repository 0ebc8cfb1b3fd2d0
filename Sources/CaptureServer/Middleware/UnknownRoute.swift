import CaptureCore
import Hummingbird

/// What no route group answers: a request no route matches gets the contract's shape instead of an empty 404 —
/// Janrain's JSON error for API callers (any POST, or a path under an API prefix), problem details under `/admin/`,
/// a small HTML page for a browser; the query is never echoed. Any other failure that reaches the router's edge
/// becomes a logged 500 in the same shape.
enum UnknownRoute {
    static func reply(to error: any Error, request: Request, context: CaptureRequestContext) -> Response {
        switch error {
        case let error as HTTPError where error.status == .notFound || error.status == .methodNotAllowed:
            let path = request.uri.path
            let style = ReplyStyle.unrouted(request)
            if style == .page {
                return ErrorPage.response(
                    .notFound, status: .notFound, messages: context.pageMessages(request), detail: "There is no page at \(path).")
            }
            return style.reply(
                to: .invalidArgument(
                    "path", "\(request.method) \(path) is not an endpoint of this service (Capture API calls are POST)"),
                request: request, context: context, status: .notFound)
        default:
            return ErrorReplyMiddleware.reply(to: error, style: ReplyStyle.unrouted(request), request: request, context: context)
        }
    }
}
