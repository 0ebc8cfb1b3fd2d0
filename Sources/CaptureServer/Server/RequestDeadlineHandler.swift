import CaptureCore
import HTTPTypes
import Logging
import NIOCore
import NIOHTTPTypes

/// Closes a connection whose client is too slow or silent, so a trickle of bytes cannot hold a socket forever:
/// - the request head must be complete within `head` of the connection opening, or of the first bytes of a next
///   request on a kept-alive connection;
/// - the body must end within `body` of its head;
/// - a kept-alive connection with no request in progress is closed after `idle`.
/// No deadline runs while the app answers a complete request.
///
/// It sits after HTTP decoding, so it sees parts, not bytes. Bytes that do not yet make a part (half a header
/// line) still end a socket read, which arrives here as `channelReadComplete` with no part before it: that is
/// how an idle connection is told from one whose next head is being dribbled.
final class RequestDeadlineHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    struct Limits: Sendable {
        var head: TimeAmount
        var body: TimeAmount
        var idle: TimeAmount

        init(settings: ServiceSettings) {
            func amount(_ seconds: Double) -> TimeAmount { .nanoseconds(Int64(seconds * 1_000_000_000)) }
            head = amount(settings.requestHeaderTimeoutSeconds)
            body = amount(settings.requestBodyTimeoutSeconds)
            idle = amount(settings.idleTimeoutSeconds)
        }
    }

    private enum Phase {
        case awaitingHead, readingBody, responding, idle
    }

    private let limits: Limits
    private let logger: Logger
    private var phase = Phase.awaitingHead
    /// Heads passed on whose response has not ended (more than one when a client pipelines).
    private var responsesOwed = 0
    private var readDeliveredPart = false
    /// Bytes of a next request arrived while the app was still answering.
    private var nextRequestStarted = false
    private var deadline: Scheduled<Void>?

    init(limits: Limits, logger: Logger) {
        self.limits = limits
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive {
            arm(.awaitingHead, context: context)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        arm(.awaitingHead, context: context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        readDeliveredPart = true
        switch unwrapInboundIn(data) {
        case .head:
            responsesOwed += 1
            nextRequestStarted = false
            // A pipelined request waits behind an earlier response; its body deadline starts when that one ends.
            if responsesOwed == 1 {
                arm(.readingBody, context: context)
            } else {
                disarm(.readingBody)
            }
        case .body:
            break
        case .end:
            if responsesOwed > 0 {
                disarm(.responding)
            } else {
                // The app answered before the body ended (413, unknown route): the connection is idle now.
                arm(.idle, context: context)
            }
        }
        context.fireChannelRead(data)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if !readDeliveredPart {
            switch phase {
            case .idle: arm(.awaitingHead, context: context)
            case .responding: nextRequestStarted = true
            case .awaitingHead, .readingBody: break
            }
        }
        readDeliveredPart = false
        context.fireChannelReadComplete()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        context.write(data, promise: promise)
        guard case .end = unwrapOutboundIn(data), responsesOwed > 0 else { return }
        responsesOwed -= 1
        switch (phase, responsesOwed) {
        case (.responding, 0):
            arm(nextRequestStarted ? .awaitingHead : .idle, context: context)
        case (.readingBody, 1):
            arm(.readingBody, context: context)  // the pipelined request is now first in line
        default:
            break
        }
    }

    private func disarm(_ next: Phase) {
        phase = next
        deadline?.cancel()
        deadline = nil
    }

    private func arm(_ next: Phase, context: ChannelHandlerContext) {
        disarm(next)
        let amount: TimeAmount
        let what: String
        switch next {
        case .awaitingHead: (amount, what) = (limits.head, "request head")
        case .readingBody: (amount, what) = (limits.body, "request body")
        case .idle: (amount, what) = (limits.idle, "next request")
        case .responding: return
        }
        deadline = context.eventLoop.assumeIsolated().scheduleTask(in: amount) { [logger] in
            logger.debug("closing a connection that waited too long for its \(what)")
            context.close(promise: nil)
        }
    }
}

@available(*, unavailable)
extension RequestDeadlineHandler: Sendable {}
