import Synchronization

/// Wakes the mail delivery loop when a message is recorded, so it goes out at once instead of at the next poll.
/// Wake-ups coalesce (a buffer of one), and nothing waits for them: with no loop listening they are dropped.
public final class MailSignal: Sendable {
    private let listener = Mutex<AsyncStream<Void>.Continuation?>(nil)

    public init() {}

    /// The wake-ups from now on, for the one loop that delivers; a later `listen()` ends the earlier stream. The loop
    /// waits on this stream alone and never cancels a wait on it: an `AsyncStream` whose waiting task is cancelled
    /// ends for good, and every later wait returns at once.
    public func listen() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        listener.withLock { current in
            current?.finish()
            current = continuation
        }
        return stream
    }

    public func wake() {
        _ = listener.withLock { $0?.yield() }
    }
}
