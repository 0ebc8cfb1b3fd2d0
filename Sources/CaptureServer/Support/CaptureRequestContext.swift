import CaptureCore
import Hummingbird
import NIOCore
import Synchronization

/// Per-request context: Hummingbird's core storage plus the peer address (for sign-in throttling) and the language
/// the reply speaks (set by `RequestPipelineMiddleware`).
public struct CaptureRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?
    var language: RequestLanguage?
    /// The admin key an admin API request was made with (`AdminKeyMiddleware`).
    var adminKeyID: String?

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.remoteAddress = source.channel.remoteAddress
    }
}

/// The language of a request's reply: its `Accept-Language`, and the `locale` parameter once a handler has read the
/// body (a form's `locale` wins, as for its validation messages).
final class RequestLanguage: Sendable {
    let localization: Localization
    let acceptLanguage: String?
    private let locale = Mutex<String?>(nil)

    init(localization: Localization, acceptLanguage: String?) {
        self.localization = localization
        self.acceptLanguage = acceptLanguage
    }

    func take(locale: String?) { self.locale.withLock { $0 = locale } }

    var messages: Messages {
        localization.messages(
            for: localization.negotiate(explicit: locale.withLock { $0 }, acceptLanguage: acceptLanguage, fallback: nil))
    }
}
