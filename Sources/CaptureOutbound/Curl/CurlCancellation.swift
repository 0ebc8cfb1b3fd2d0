import Synchronization

/// Set by the calling task's cancellation handler, read by the progress callback on the curl thread, which then
/// aborts the transfer (CURLE_ABORTED_BY_CALLBACK). Sendable without help: the only state is an atomic.
final class CurlCancellation: Sendable {
    private let flag = Atomic<Bool>(false)

    func cancel() { flag.store(true, ordering: .relaxed) }
    var isCancelled: Bool { flag.load(ordering: .relaxed) }
}
