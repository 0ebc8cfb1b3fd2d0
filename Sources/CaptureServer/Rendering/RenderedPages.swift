import CaptureCore
import Hummingbird
import Synchronization

/// Flow pages as rendered for a `FlowPageView`, so a page is rendered (settings JSON, template, ETag) once per
/// client, flow, language and response type, not per request. The view holds the client as read against the
/// clients' version on this request, so a changed client is a different key: a changed or removed client never gets
/// an old page. Views with per-request values (a PKCE challenge, an app return URI) are rendered each time and not
/// kept. Bounded: a full cache starts over.
final class RenderedPages: Sendable {
    static let capacity = 256

    struct Key: Hashable, Sendable {
        let flow: String
        let client: Client
        let locale: String
        let responseType: String
        let tokenURL: String
    }

    private let pages = Mutex<[Key: StaticAssets.Asset]>([:])

    /// The page for `view`, from the cache or from `render` (kept when the view can be).
    func page(for view: FlowPageView, render: () -> String) -> StaticAssets.Asset {
        guard view.codeChallenge == nil, view.appReturnURI == nil else { return Self.asset(render()) }
        let key = Key(
            flow: view.flow.name, client: view.client, locale: view.locale, responseType: view.responseType,
            tokenURL: view.tokenURL)
        if let page = pages.withLock({ $0[key] }) { return page }
        let page = Self.asset(render())
        pages.withLock { pages in
            if pages.count >= Self.capacity { pages.removeAll(keepingCapacity: true) }
            pages[key] = page
        }
        return page
    }

    /// The language follows `Accept-Language` when the link names none: caches must keep one copy per language.
    private static func asset(_ html: String) -> StaticAssets.Asset {
        var fields = HTTPFields()
        fields[.vary] = "Accept-Language"
        return StaticAssets.Asset(
            bytes: ByteBuffer(string: html), contentType: "text/html; charset=utf-8", fields: fields)
    }
}
