import Hummingbird
import NIOCore

/// Per-request context: Hummingbird's core storage plus the peer address (for sign-in throttling).
public struct CaptureRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.remoteAddress = source.channel.remoteAddress
    }
}
