import Foundation

/// Where a `capture-server` started with `--port 0` listens: the kernel picks a free port and the server logs it
/// ("capture-server listening on <host>:<port>"). Tests read it from the server's output file rather than choosing a
/// random port themselves: with a chosen port, a server that failed to bind would look ready whenever another
/// test's server already held that port, and the test would talk to the wrong server.
public enum ServerAnnouncement {
    /// The port announced in `file` (the server's standard error, or both streams), or nil when `process` exits
    /// first or nothing is announced within `seconds`.
    public static func port(in file: URL, of process: TestProcess, seconds: Double = 60) async -> Int? {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if let text = try? String(contentsOf: file, encoding: .utf8), let port = port(in: text) { return port }
            if !process.isRunning { return nil }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return nil
    }

    /// Polls `probe` (a request to the server's `/health/ready`) every 100 ms until it answers true or `seconds`
    /// have passed. A deadline, not a count of tries: a debug build starting beside a busy parallel test run on two
    /// cores has taken over 10 s to answer (a CI run failed on a count of 100 tries), while an idle machine answers
    /// in about 1 s. Start servers inside `ServerStarts.one`, so that few start at once.
    public static func ready(within seconds: Double = 60, _ probe: () async -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        repeat {
            if await probe() { return true }
            try? await Task.sleep(for: .milliseconds(100))
        } while ContinuousClock.now < deadline
        return false
    }

    /// The port in "capture-server listening on <host>:<port>" (the log, plain or JSON, at `info`) or in the
    /// "Open http://<host>:<port>/flows/…" lines the server prints on its standard output whatever the log level.
    public static func port(in text: String) -> Int? {
        for (marker, end) in [("capture-server listening on ", nil), ("Open http://", Character("/"))] as [(String, Character?)] {
            guard let range = text.range(of: marker) else { continue }
            let address = text[range.upperBound...].prefix { !$0.isWhitespace && $0 != "\"" && $0 != end }
            if let colon = address.lastIndex(of: ":"), let port = Int(address[address.index(after: colon)...]) { return port }
        }
        return nil
    }
}
