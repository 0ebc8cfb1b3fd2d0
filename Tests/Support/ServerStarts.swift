/// How many `capture-server` processes the test run starts at once. The suites run in parallel on two cores, and
/// dozens of tests start a debug server of their own (every `capturectl --server` session, every live-process test):
/// started all at once, each took over 30 s to announce its port in a CI run on PostgreSQL (one about 1 s alone), and
/// a test gave up on it. Starting a few at a time keeps each start short; a test waits for its turn before its own
/// deadlines begin. A server holds its turn only while it starts, never while it serves.
public actor ServerStarts {
    /// Shared by every suite in the test process.
    public static let gate = ServerStarts(width: 3)

    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(width: Int) { free = width }

    /// `start` (launch a server and wait until it is ready) once fewer than `width` others are starting.
    public static func one<T>(_ start: () async throws -> T) async throws -> T {
        await gate.enter()
        do {
            let started = try await start()
            await gate.leave()
            return started
        } catch {
            await gate.leave()
            throw error
        }
    }

    private func enter() async {
        if free > 0 {
            free -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    private func leave() {
        if waiting.isEmpty { free += 1 } else { waiting.removeFirst().resume() }
    }
}
