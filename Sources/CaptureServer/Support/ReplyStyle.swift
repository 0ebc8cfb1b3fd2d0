import CaptureCore
import Hummingbird

/// The reply shapes of the HTTP surface. Every route belongs to a group of one style, and that group's
/// `ErrorReplyMiddleware` is the one place its failures become replies (see `buildRouter`).
enum ReplyStyle: String, Sendable {
    /// Janrain's Capture API: HTTP 200 with `stat:error` (Replies.swift).
    case capture
    /// RFC 6749 §5.2 (`/oauth/token`, `/oauth/revoke`, `/oauth/introspect`, RFC 8414 metadata).
    case oauth
    /// Janrain Engage (`/signin/oauth_token`).
    case engage
    /// BrowserID receipts (`/verify`).
    case verify
    /// RFC 9457 problem details (`/admin/v1/…`, health, metrics).
    case problem
    /// HTML pages in the reader's language (flow pages, assets, social redirects).
    case page

    /// A domain error in this style's shape; `status` overrides the one the style gives the error.
    func reply(
        to error: CaptureError, request: Request, context: CaptureRequestContext, status: HTTPResponse.Status? = nil
    ) -> Response {
        var response: Response
        switch self {
        case .capture: response = Reply.captureError(error, messages: context.language?.messages)
        case .oauth: response = Reply.oauthError(error)
        case .engage: response = Reply.engageError(error)
        case .verify: response = Reply.verifyError(error)
        // A problem document states its status in its body too.
        case .problem: response = Reply.problem(error, status: status)
        case .page: response = ErrorPage.response(for: error, messages: context.pageMessages(request))
        }
        if let status, self != .problem { response.status = status }
        if error == .storageUnavailable { response.headers[.retryAfter] = "\(Self.retryAfterSeconds)" }
        return response
    }

    /// How long a caller waits before sending a request again that the database could not take (`Retry-After`).
    static let retryAfterSeconds = 2

    /// The style of a request no route matched: by its path and method, as an API caller or a browser expects.
    static func unrouted(_ request: Request) -> ReplyStyle {
        let path = request.uri.path
        if path.hasPrefix("/admin/") { return .problem }
        if request.method == .post || apiPrefixes.contains(where: { path.hasPrefix($0) }) { return .capture }
        return .page
    }

    static let apiPrefixes = ["/oauth/", "/entity", "/verify", "/.well-known/", "/widget_data/", "/signin/"]
}

extension CaptureRequestContext {
    /// The language of an HTML reply: the page's `locale`, else `Accept-Language` (English before
    /// `RequestPipelineMiddleware` has set it).
    func pageMessages(_ request: Request) -> Messages {
        (language?.localization ?? Localization(catalogs: [])).messages(for: request)
    }
}
