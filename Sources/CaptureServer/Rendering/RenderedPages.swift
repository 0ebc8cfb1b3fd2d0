import CaptureCore
import Hummingbird

/// Flow pages as rendered for a `FlowPageView`, so a page is rendered (settings JSON, template, ETag) once per
/// client, flow, language, response type and token URL, not per request. Kept under the clients version the view's
/// client was read at (`VersionedCache`), so a changed or removed client never gets an old page. Views with
/// per-request values (`FlowPageView.isShared`) are rendered each time and not kept.
final class RenderedPages: Sendable {
    static let capacity = 256

    struct Key: Hashable, Sendable {
        let flow: String
        let clientID: String
        let locale: String
        let responseType: ResponseType
        let tokenURL: String
    }

    private let pages = VersionedCache<Key, StaticAssets.Asset>(capacity: capacity)

    /// The page for `view`, from the cache or from `render` (its HTML and CSP; kept when the view is shared).
    func page(for view: FlowPageView, render: () throws -> (html: String, policy: String)) rethrows -> StaticAssets.Asset {
        guard view.isShared else { return Self.asset(try render()) }
        let key = Key(
            flow: view.flow.name, clientID: view.client.clientID, locale: view.locale, responseType: view.responseType,
            tokenURL: view.tokenURL)
        if let page = pages.value(key, version: view.clientsVersion) { return page }
        let page = Self.asset(try render())
        pages.keep(page, for: key, version: view.clientsVersion)
        return page
    }

    /// The language follows `Accept-Language` when the link names none: caches must keep one copy per language.
    private static func asset(_ page: (html: String, policy: String)) -> StaticAssets.Asset {
        var fields = HTTPFields()
        fields[.vary] = "Accept-Language"
        fields[.contentSecurityPolicy] = page.policy
        return StaticAssets.Asset(
            bytes: ByteBuffer(string: page.html), contentType: "text/html; charset=utf-8", fields: fields)
    }
}
