import CCurl
import NIOPosix

/// libcurl's process-wide set-up, run once before the first handle; libcurl asks that it happen before any thread
/// uses it, and Swift runs a global's initializer exactly once.
private let curlGlobalInitCode: UInt32 = ccurl_global_init().rawValue

/// The one outbound client: libcurl transfers run on a small pool of dedicated threads, so a slow relay or provider
/// never holds an event loop or a thread of Swift's cooperative pool. Callers suspend until their transfer is done.
public final class CurlClient: Sendable {
    /// A client for the whole process (4 threads), for callers with no reason to size their own.
    public static let shared = CurlClient(threadCount: 4)

    /// At most `threadCount` transfers run at once; more wait their turn (their timeouts start when they run).
    public let threadCount: Int
    private let pool: NIOThreadPool

    public init(threadCount: Int = 4) {
        precondition(threadCount > 0, "a CurlClient needs at least one thread")
        self.threadCount = threadCount
        pool = NIOThreadPool(numberOfThreads: threadCount)
        pool.start()
    }

    deinit {
        // Queued work still runs (transfers in flight hold a reference to the client, so there are none).
        pool.shutdownGracefully { _ in }
    }

    /// Runs a transfer on a curl thread. Never throws: every failure, cancellation included, is in the outcome.
    func perform(_ transfer: CurlTransfer) async -> CurlOutcome {
        guard curlGlobalInitCode == CURLE_OK.rawValue else {
            return CurlOutcome(
                code: curlGlobalInitCode, responseCode: 0, errorText: "libcurl could not be initialised",
                lastServerReply: nil)
        }
        let cancellation = CurlCancellation()
        return await withTaskCancellationHandler {
            do {
                return try await pool.runIfActive { CurlEasyTransfer.run(transfer, cancellation: cancellation) }
            } catch {
                // Only two ways here: cancelled while queued, or the pool is shutting down.
                var outcome = CurlOutcome(
                    code: CURLE_ABORTED_BY_CALLBACK.rawValue, responseCode: 0,
                    errorText:
                        "the transfer did not start: \(error is CancellationError ? "cancelled" : "client shut down")",
                    lastServerReply: nil)
                outcome.cancelled = error is CancellationError
                return outcome
            }
        } onCancel: {
            cancellation.cancel()
        }
    }
}
