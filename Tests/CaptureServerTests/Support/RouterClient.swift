import CaptureServer
import Hummingbird
import Logging
import NIOCore
import NIOEmbedded
import Synchronization

/// Hands requests straight to a router's responder, without sockets: what the in-process tests drive. (Hummingbird's
/// own test framework does the same, but brings an HTTP client stack — AsyncHTTPClient, NIOHTTP2 — that was a tenth
/// of the test build.)
struct RouterClient: Sendable {
    let responder: RouterResponder<CaptureRequestContext>
    let logger: Logger

    init(router: Router<CaptureRequestContext>, logger: Logger = Logger(label: "capture-test")) {
        self.responder = router.buildResponder()
        self.logger = logger
    }

    func execute(
        _ path: String, method: HTTPRequest.Method, headers: HTTPFields, body: ByteBuffer?
    ) async throws -> (HTTPResponse, ByteBuffer) {
        var headers = headers
        if let body { headers[.contentLength] = String(body.readableBytes) }
        let request = Request(
            head: .init(method: method, scheme: "http", authority: "localhost", path: path, headerFields: headers),
            body: RequestBody(buffer: body ?? ByteBuffer()))
        // No peer: the context's remote address is nil, as behind an in-process call.
        let context = CaptureRequestContext(source: .init(channel: NIOAsyncTestingChannel(), logger: logger))
        let response: Response
        do {
            response = try await responder.respond(to: request, context: context)
        } catch let error as any HTTPResponseError {
            // As the server answers an error that escapes the router.
            response = try error.response(from: request, context: context)
        } catch {
            response = Response(status: .internalServerError)
        }
        let collected = CollectedBody()
        try await response.body.write(collected)
        return (response.head, collected.buffer.bytes.withLock { $0 })
    }
}

/// Collects a response body's buffers.
private struct CollectedBody: ResponseBodyWriter {
    final class Buffer: Sendable { let bytes = Mutex(ByteBuffer()) }
    let buffer = Buffer()

    func write(_ part: ByteBuffer) async throws { buffer.bytes.withLock { _ = $0.writeImmutableBuffer(part) } }
    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
