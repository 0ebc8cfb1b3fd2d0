/// Wakes the mail delivery loop when a message is recorded, so it goes out at once instead of at the next poll.
/// Signals coalesce (a buffer of one), and nothing waits for them: with no loop running they are simply dropped.
public struct MailSignal: Sendable {
    public let stream: AsyncStream<Void>
    let continuation: AsyncStream<Void>.Continuation

    public init() {
        (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    public func wake() {
        continuation.yield()
    }
}
