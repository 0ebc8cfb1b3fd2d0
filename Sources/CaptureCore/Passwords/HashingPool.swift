import Foundation
import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

/// The threads password hashes are computed on: one per core, never an event loop, never an unbounded queue. Work
/// beyond them waits its turn. On Linux they run below normal priority (nice 10), so that while a sign-in storm
/// keeps them busy, the event loops still answer token checks and pages first; with nothing else to do, bcrypt
/// still gets every core.
public enum HashingPool {
    public static let threadCount = ProcessInfo.processInfo.activeProcessorCount
    /// Below the event loops (nice 0): under contention the scheduler gives these threads about a tenth of a core's
    /// share against each busy normal thread.
    static let niceness: Int32 = 10

    private static let pool: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: threadCount)
        pool.start()
        return pool
    }()

    /// `work` on one of the pool's threads; the caller suspends meanwhile.
    public static func run<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            // The pool is never shut down, so every item runs; the state is not needed.
            pool.submit { _ in
                lowerPriority()
                continuation.resume(returning: work())
            }
        }
    }

    /// The calling thread only: on Linux the nice value is per thread and `who` 0 is the calling one. Idempotent,
    /// one system call per hash (bcrypt takes tens of milliseconds).
    private static func lowerPriority() {
        #if os(Linux)
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceness)
        #endif
    }
}
