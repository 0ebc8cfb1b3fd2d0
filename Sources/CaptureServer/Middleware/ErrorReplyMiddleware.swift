import CaptureCore
import Hummingbird
import Logging

/// The one owner of a route group's failures: a domain error becomes the group's shape, and anything unexpected
/// a logged 500 in that shape — never a bare error, never a stack trace. It sits inside the router-wide middleware,
/// so every such reply still gets the security headers. A group a customer's page calls (`crossOrigin`) has its
/// replies, errors included, made readable from the origins clients allow, in this same layer.
struct ErrorReplyMiddleware: RouterMiddleware {
    typealias Context = CaptureRequestContext
    let style: ReplyStyle
    var crossOrigin: CrossOriginReplies? = nil

    @concurrent func handle(
        _ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response
    ) async throws -> Response {
        var allowedOrigin: String?
        var response: Response
        do {
            allowedOrigin = try await crossOrigin?.allowedOrigin(of: request)
            response = try await next(request, context)
        } catch {
            response = Self.reply(to: error, style: style, request: request, context: context)
        }
        if let allowedOrigin { CrossOriginReplies.allow(allowedOrigin, on: &response) }
        return response
    }

    static func reply(to error: any Error, style: ReplyStyle, request: Request, context: Context) -> Response {
        switch error {
        case let error as CaptureError:
            return style.reply(to: error, request: request, context: context)
        case let refusal as FlowPageRefusal:
            return ErrorPage.response(for: refusal, messages: context.pageMessages(request))
        case let error as HTTPError where (400..<500).contains(error.status.code):
            // Hummingbird's own refusals (a body over its limit while collecting, …) keep their status.
            return style.reply(
                to: .malformedRequest("request", error.body ?? error.status.reasonPhrase), request: request, context: context,
                status: error.status)
        default:
            // The type names the failure for the operator; its description may hold values and stays out of the log.
            context.logger.error(
                "unexpected failure",
                metadata: ["error": "\(String(reflecting: type(of: error)))", "path": "\(request.uri.path)"])
            return style.reply(to: .unexpected(String(describing: type(of: error))), request: request, context: context)
        }
    }
}
