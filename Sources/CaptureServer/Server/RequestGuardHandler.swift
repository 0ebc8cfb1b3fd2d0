import CaptureCore
import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// Answers, below the router, what the router must never see, and ends connections that cannot carry another
/// request. Every reply here is complete (`Content-Length`), in the Capture error shape, and closes the connection.
///
/// - A method the service does not serve (CONNECT, TRACE, PUT, …) gets a 405. CONNECT cannot be left to the
///   router: NIO's decoder stops parsing after its head (the rest of the stream is meant to be a tunnel) and NIO's
///   encoder strips `Content-Length` and the body from any response to it, so the reply is written as bytes
///   below the encoder. The other methods take the same path so there is one rule for them all.
/// - A request head NIO cannot parse (a made-up method, a broken request line or header) gets a 400 (a 405 for
///   the method), where Hummingbird would write an empty 400.
/// - A body NIO cannot parse (bad chunk size, truncated chunk) reaches the route as an `HTTPParserError`, which
///   `APIRequest` answers with a 400; the decoder cannot find where a next request would start, so the
///   connection closes after that reply.
final class RequestGuardHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// Every route is GET or POST (HEAD is generated for GET). OPTIONS joins when CORS does.
    static let servedMethods: Set<HTTPRequest.Method> = [.get, .head, .post]
    /// The admin API also changes (PATCH) and deletes (DELETE) what it names; nothing else does.
    static let adminMethods: Set<HTTPRequest.Method> = [.patch, .delete]

    static func serves(_ method: HTTPRequest.Method, path: String?) -> Bool {
        servedMethods.contains(method) || (adminMethods.contains(method) && path?.hasPrefix("/admin/") == true)
    }
    static let allowHeader = "GET, HEAD, POST"
    /// How long a refused connection may still send (and have discarded) before it is closed outright. Closing
    /// with unread input makes the kernel send a reset, which can destroy the reply before the client reads it.
    static let linger = TimeAmount.seconds(2)

    /// Security headers every reply carries (`SecurityHeaders.fields`).
    private let replyHeaders: HTTPFields
    /// Requests handed to the app whose response has not ended yet.
    private var responsesOwed = 0
    private var readingBody = false
    private var closeAfterResponse = false
    /// A refusal is decided: nothing more is read. The reply waits in `pendingReply` while a response is owed.
    private var refused = false
    private var pendingReply: ByteBuffer?

    init(replyHeaders: HTTPFields) {
        self.replyHeaders = replyHeaders
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        let part = unwrapInboundIn(data)
        switch part {
        case .head(let head):
            guard Self.serves(head.method, path: head.path) else {
                refuse(context: context, reply: methodNotAllowed(head.method.rawValue))
                return
            }
            responsesOwed += 1
            readingBody = true
        case .body:
            break
        case .end:
            readingBody = false
        }
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard !refused else { return }
        guard let parserError = error as? HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        if readingBody && responsesOwed > 0 {
            // The route reading this body answers 400 (`APIRequest`); the connection ends after that reply.
            closeAfterResponse = true
            context.fireErrorCaught(error)
        } else if readingBody {
            // The app already answered this request without reading its body: nothing more to say.
            refused = true
            lingeringClose(context: context)
        } else if parserError == .invalidMethod {
            refuse(context: context, reply: methodNotAllowed(nil))
        } else {
            let error = CaptureError.malformedRequest("request", "the request is not valid HTTP/1.1 (\(parserError))")
            refuse(context: context, reply: reply(.badRequest, error))
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var response) where closeAfterResponse && responsesOwed == 1:
            response.headerFields[.connection] = "close"
            context.write(wrapOutboundOut(.head(response)), promise: promise)
        case .head, .body:
            context.write(data, promise: promise)
        case .end:
            responsesOwed = max(0, responsesOwed - 1)
            context.write(data, promise: promise)
            guard responsesOwed == 0 else { return }
            if let reply = pendingReply {
                pendingReply = nil
                send(context: context, reply: reply)
            } else if closeAfterResponse {
                refused = true
                context.flush()  // the app's last write may not be flushed yet; half-closing waits only for flushed ones
                lingeringClose(context: context)
            }
        }
    }

    private func refuse(context: ChannelHandlerContext, reply: ByteBuffer) {
        refused = true
        if responsesOwed == 0 {
            send(context: context, reply: reply)
        } else {
            // An earlier pipelined request is still being answered: this reply must follow it.
            pendingReply = reply
        }
    }

    /// Writes `reply` as raw bytes below NIO's HTTP encoder, then closes.
    private func send(context: ChannelHandlerContext, reply: ByteBuffer) {
        guard let encoder = try? context.pipeline.syncOperations.context(handlerType: HTTPResponseEncoder.self) else {
            context.close(promise: nil)
            return
        }
        encoder.writeAndFlush(NIOAny(reply), promise: nil)
        lingeringClose(context: context)
    }

    /// Shuts our side (the client reads the reply, then end of stream) and closes fully a little later.
    private func lingeringClose(context: ChannelHandlerContext) {
        context.close(mode: .output, promise: nil)
        context.eventLoop.assumeIsolated().scheduleTask(in: Self.linger) {
            context.close(promise: nil)
        }
    }

    private func methodNotAllowed(_ method: String?) -> ByteBuffer {
        let name = method ?? "this method"
        let error = CaptureError.invalidArgument("method", "\(name) is not supported by this service (use GET or POST)")
        return reply(.methodNotAllowed, error)
    }

    private func reply(_ status: HTTPResponse.Status, _ error: CaptureError) -> ByteBuffer {
        let body = Reply.captureErrorBody(error).encodedBytes()
        var fields = replyHeaders
        fields[.contentType] = "application/json; charset=utf-8"
        fields[.contentLength] = "\(body.count)"
        fields[.cacheControl] = "no-store"
        fields[.connection] = "close"
        if status == .methodNotAllowed {
            fields[.allow] = Self.allowHeader
        }
        var buffer = ByteBuffer()
        buffer.writeString("HTTP/1.1 \(status.code) \(status.reasonPhrase)\r\n")
        for field in fields {
            // HTTPFields has already refused CR, LF and NUL in names and values.
            buffer.writeString("\(field.name): \(field.value)\r\n")
        }
        buffer.writeString("\r\n")
        buffer.writeBytes(body)
        return buffer
    }
}

@available(*, unavailable)
extension RequestGuardHandler: Sendable {}
