import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// Gives every `304 Not Modified` a `Content-Length: 0`, which NIO's HTTP/1 encoder strips from replies that cannot
/// have a body. A 304 has none either way (RFC 9112 §6.3), but WebKit's network stack (libsoup) reads a reply without
/// `Content-Length` or `Transfer-Encoding` as "ends when the connection closes" and so never reuses the connection:
/// a returning web view that revalidates its assets would open one connection per 304 (issue 54).
///
/// `0`, not the length a 200 would carry (which RFC 9110 §8.6 would also allow): OkHttp, in Android apps, honours a
/// 304's `Content-Length` and would wait for that many bytes. 204s stay as they are (RFC 9110 §8.6 forbids the
/// field there, and the service sends none).
///
/// Two handlers share the note: `NotModifiedFraming` (with the app's other handlers, above the encoder) sees the
/// reply's head with its fields, and `Writer`, which it places just below the encoder, puts the field back into the
/// bytes of that head. The encoder writes a head as one buffer, synchronously within the write of the head part,
/// so the note is never carried to anything else.
final class NotModifiedFraming: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// Whether the next head written below the encoder is a 304's.
    final class Note {
        var notModified = false
    }

    /// Below NIO's encoder: adds `content-length: 0` to a 304's head, after its status line.
    final class Writer: ChannelOutboundHandler, RemovableChannelHandler {
        typealias OutboundIn = IOData
        typealias OutboundOut = IOData

        private let note: Note

        init(note: Note) {
            self.note = note
        }

        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            guard note.notModified, case .byteBuffer(let head) = unwrapOutboundIn(data) else {
                context.write(data, promise: promise)
                return
            }
            note.notModified = false
            context.write(wrapOutboundOut(.byteBuffer(Self.framed(head))), promise: promise)
        }

        /// `head` with `content-length: 0` after its first line (the status line).
        static func framed(_ head: ByteBuffer) -> ByteBuffer {
            let view = head.readableBytesView
            guard let cr = view.firstIndex(of: UInt8(ascii: "\r")) else { return head }
            let split = cr - view.startIndex + 2
            guard split <= head.readableBytes else { return head }
            var framed = ByteBuffer()
            framed.reserveCapacity(head.readableBytes + 19)
            framed.writeBytes(view.prefix(split))
            framed.writeString("content-length: 0\r\n")
            framed.writeBytes(view.dropFirst(split))
            return framed
        }
    }

    private let note = Note()

    func handlerAdded(context: ChannelHandlerContext) {
        // Just below the encoder, so the writer sees the encoder's bytes before anything else does.
        let pipeline = context.pipeline.syncOperations
        guard let encoder = try? pipeline.handler(type: HTTPResponseEncoder.self) else { return }
        try? pipeline.addHandler(Writer(note: note), position: .before(encoder))
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .head(let response) = unwrapOutboundIn(data), response.status == .notModified {
            note.notModified = true
        }
        context.write(data, promise: promise)
    }
}

@available(*, unavailable)
extension NotModifiedFraming: Sendable {}

@available(*, unavailable)
extension NotModifiedFraming.Writer: Sendable {}
