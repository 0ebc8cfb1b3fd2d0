import Synchronization

/// Counts 10 ms sleeps on the cooperative pool while a test's calls are in flight. If a call blocked a pool thread
/// (2 on a 2-core machine) for the length of a transfer, the count would stall.
final class Ticker: Sendable {
    private let count = Atomic<Int>(0)
    private let running = Atomic<Bool>(true)

    var ticks: Int { count.load(ordering: .relaxed) }

    func start() -> Task<Void, Never> {
        Task {
            while running.load(ordering: .relaxed) {
                try? await Task.sleep(for: .milliseconds(10))
                count.add(1, ordering: .relaxed)
            }
        }
    }

    func stop() { running.store(false, ordering: .relaxed) }
}
