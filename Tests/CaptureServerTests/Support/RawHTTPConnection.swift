import CaptureTestSupport
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP connection to 127.0.0.1 for tests that need bytes no HTTP client would send: half a head, a body that
/// stops, CONNECT, a broken chunk. Sends are short blocking calls; reads, which wait for seconds, block a thread of
/// their own (`onOwnThread`), never one of the concurrency threads every running test shares. A connection is
/// used by one test, one call at a time, hence `@unchecked Sendable`.
final class RawHTTPConnection: @unchecked Sendable {
    /// What a read saw: the server closed (end of stream or reset), or nothing came before the timeout.
    enum Ending: Equatable { case closed, timedOut }

    /// A reply parsed just enough for the tests: status, lower-cased header names, and the body by Content-Length.
    struct Reply {
        let status: Int
        let headers: [String: String]
        let body: Data
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
    }

    struct Failure: Error, CustomStringConvertible { let description: String }

    private let fd: Int32
    private var buffered = Data()

    /// The socket is connected before it is stored: a throwing initializer of a fully initialized class still runs
    /// `deinit`, so closing a stored descriptor on failure would close its number twice — and the second close
    /// could hit a file or socket another test thread had just opened under the same number.
    init(port: Int) throws {
        fd = try LoopbackSocket.connect(port: port)
    }

    deinit { close(fd) }

    func send(_ text: String) throws {
        try send(Array(text.utf8))
    }

    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { socketSend(fd, $0.baseAddress, $0.count) }
            guard sent > 0 else { throw Failure(description: "send() failed: \(errno)") }
            offset += sent
        }
    }

    /// Ends our sending side (the server reads end of stream) while still reading the reply.
    func shutdownWrite() {
        shutdown(fd, Int32(SHUT_WR))
    }

    /// What `readUntilClosed` saw, and when it ended: taken on the reading thread, so a busy concurrency pool
    /// resuming the test late does not stretch the time a test measures.
    struct Read: Sendable {
        let ending: Ending
        let data: Data
        let endedAt: Date
    }

    /// Reads until the server ends the stream or `timeout` passes with nothing new; keeps what it read.
    @discardableResult
    func readUntilClosed(timeout: Double) async -> Read {
        await onOwnThread { self.blockingReadUntilClosed(timeout: timeout) }
    }

    /// Reads one reply (head, then Content-Length bytes of body); nil if the stream ends or times out first. By
    /// default it waits as long as a test waits for what comes within a second on a quiet machine
    /// (`TestTiming.patience`): two lanes of tests on two cores were seen to hold an in-process server's reply 90 s.
    func readReply(timeout: Double = Double(TestTiming.patience.components.seconds)) async -> Reply? {
        await onOwnThread { self.blockingReadReply(timeout: timeout) }
    }

    /// `readUntilClosed` on the calling thread, for a loop that runs wholly on a thread of its own.
    func blockingReadUntilClosed(timeout: Double) -> Read {
        let start = Date()
        while true {
            let left = timeout - Date().timeIntervalSince(start)
            guard left > 0 else { return Read(ending: .timedOut, data: buffered, endedAt: Date()) }
            switch receive(timeout: left) {
            case .some(let chunk) where chunk.isEmpty: return Read(ending: .closed, data: buffered, endedAt: Date())
            case .some(let chunk): buffered.append(chunk)
            case .none: return Read(ending: .timedOut, data: buffered, endedAt: Date())
            }
        }
    }

    /// `readReply` on the calling thread.
    func blockingReadReply(timeout: Double = 5) -> Reply? {
        let start = Date()
        let separator = Data("\r\n\r\n".utf8)
        while true {
            if let end = buffered.range(of: separator) {
                let head = String(decoding: buffered[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
                let statusLine = head[0].split(separator: " ")
                guard statusLine.count >= 2, let status = Int(statusLine[1]) else { return nil }
                var headers: [String: String] = [:]
                for line in head.dropFirst() {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                }
                let length = Int(headers["content-length"] ?? "0") ?? 0
                if buffered.count - end.upperBound >= length {
                    let body = buffered.subdata(in: end.upperBound..<(end.upperBound + length))
                    buffered.removeSubrange(..<(end.upperBound + length))
                    return Reply(status: status, headers: headers, body: body)
                }
            }
            let left = timeout - Date().timeIntervalSince(start)
            guard left > 0, let chunk = receive(timeout: left), !chunk.isEmpty else { return nil }
            buffered.append(chunk)
        }
    }

    /// One recv: the bytes, an empty Data at end of stream (or reset), nil on timeout.
    private func receive(timeout: Double) -> Data? {
        let micros = max(1000, Int(timeout * 1_000_000))
        var limit = timeval(tv_sec: micros / 1_000_000, tv_usec: .init(micros % 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var bytes = [UInt8](repeating: 0, count: 65536)
        let count = recv(fd, &bytes, bytes.count, 0)
        if count > 0 { return Data(bytes[..<count]) }
        if count == 0 || errno == ECONNRESET { return Data() }
        return nil
    }
}

/// `send` without SIGPIPE when the server has closed; a free function because the class has its own `send`.
private func socketSend(_ fd: Int32, _ pointer: UnsafeRawPointer?, _ count: Int) -> Int {
    #if canImport(Glibc)
    send(fd, pointer, count, Int32(MSG_NOSIGNAL))
    #else
    send(fd, pointer, count, 0)
    #endif
}
