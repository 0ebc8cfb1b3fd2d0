import CaptureCore
import CaptureJSON
import Foundation
import Hummingbird

/// HTML responses, including the small pages that say what went wrong: in the reader's language, with a way
/// forward ("Try again"), the developer's detail folded away, and `onCaptureRenderComplete` with an error status over
/// the bridge, so a host learns the page failed (never a blank page).
enum ErrorPage {
    /// What went wrong, as the page names it (`errorPage.<kind>.*` in the catalogs) and the host hears it (`error`).
    enum Kind: String {
        case invalidLink, notFound, socialNotStarted, socialExpired, socialRefused, socialOtherBrowser, unavailable
        /// Not an error: RP-initiated logout with nowhere to go back to.
        case signedOut
    }

    /// A domain error on a page route: the service failing is a 500 ("try again later"), anything else a link
    /// this page cannot act on.
    static func response(for error: CaptureError, messages: Messages) -> Response {
        if case .unexpected = error { return response(.unavailable, status: .internalServerError, messages: messages) }
        if error == .storageUnavailable { return response(.unavailable, status: .serviceUnavailable, messages: messages) }
        return response(.invalidLink, status: .badRequest, messages: messages, detail: error.errorDescription)
    }

    static func response(for refusal: FlowPageRefusal, messages: Messages) -> Response {
        switch refusal {
        case .noSuchFlow: response(.notFound, status: .notFound, messages: messages, detail: refusal.message)
        case .invalidLink: response(.invalidLink, status: .badRequest, messages: messages, detail: refusal.message)
        }
    }

    static func html(_ body: String, status: HTTPResponse.Status) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    static func response(_ kind: Kind, status: HTTPResponse.Status, messages: Messages, detail: String? = nil) -> Response {
        let title = HTML.escape(messages.text("errorPage.\(kind.rawValue).title"))
        let event: JSONValue = [
            "status": "error", "statusMessage": "pageError", "error": .string(kind.rawValue),
            "httpStatus": .int(Int64(status.code)),
        ]
        let details =
            detail.map {
                "<details class=\"capture_error_details\"><summary>\(HTML.escape(messages.text("errorPage.details")))</summary>"
                    + "<p>\(HTML.escape($0))</p></details>"
            } ?? ""
        return html(
            """
            <!DOCTYPE html>
            <html lang="\(HTML.escape(messages.tag))" dir="\(messages.isRightToLeft ? "rtl" : "ltr")"><head><meta charset="utf-8">\
            <meta name="viewport" content="width=device-width, initial-scale=1"><meta name="color-scheme" content="light dark">\
            <title>\(title)</title><link rel="stylesheet" href="/flows/assets/capture.css">\
            <script type="application/json" id="capture-page-error">\(HTML.scriptSafeJSON(String(decoding: event.encoded(), as: UTF8.self)))</script>\
            </head><body class="capture_page"><main class="capture_container capture_error_page"><h1>\(title)</h1>\
            <p>\(HTML.escape(messages.text("errorPage.\(kind.rawValue).message")))</p>\
            <button type="button" class="capture_btn capture_primary" data-capture-retry>\(HTML.escape(messages.text("errorPage.retry")))</button>\
            \(details)<p class="capture_error_status">\(HTML.escape(messages.text("errorPage.status", ["status": "\(status.code)"])))</p>\
            </main><script src="/flows/assets/janrain-bridge.js"></script><script src="/flows/assets/error-page.js"></script></body></html>
            """, status: status)
    }
}

extension Localization {
    /// The language of a page that has only its URL and headers to go by: `locale` in the query, else
    /// `Accept-Language`.
    func messages(for request: Request) -> Messages {
        messages(
            for: negotiate(
                explicit: request.uri.queryParameters["locale"].map(String.init).flatMap { Self.isLanguageTag($0) ? $0 : nil },
                acceptLanguage: request.headers.value(.acceptLanguage), fallback: nil))
    }
}
