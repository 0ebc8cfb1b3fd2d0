import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs blocking work (waiting for a child process, a socket read with a timeout) on a thread of its own. Swift's
/// cooperative pool has one thread per core (two here) for every test running at once: a test that blocks one of
/// them for seconds stalls the others' servers and clients, and a request of theirs can then time out.
public func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result(catching: body)) }
    }
}

/// `onOwnThread` for work that cannot fail.
public func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: body()) }
    }
}

public struct FixtureError: Error, CustomStringConvertible {
    public var description: String
    public init(description: String) { self.description = description }
}

/// A real server (aiosmtpd, an OpenID Connect provider, …) run by a Python script for the length of a test. The
/// script prints its port on the first line and exits when its input closes. Scripts start through one launcher per
/// test process (Fixtures/fixture_launcher.py), which imports their modules once and forks each server with a
/// loopback connection as its input and output: `stop()` (in a `defer`) closes the connection, which ends the server,
/// and so does the test process going away.
public final class FixtureServer: @unchecked Sendable {
    public let port: Int
    private let connection: Int32

    /// Debian's python3 packages install for the system interpreter; a python3 earlier on PATH may not have them.
    public static let interpreter =
        FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") ? "/usr/bin/python3" : "python3"

    private init(port: Int, connection: Int32) {
        self.port = port
        self.connection = connection
    }

    public static func start(script: String, arguments: [String]) async throws -> FixtureServer {
        let launcher = try await FixtureLauncher.shared.port()
        let request = String(
            decoding: try JSONSerialization.data(withJSONObject: ["script": script, "arguments": arguments]), as: UTF8.self)
        let (connection, line) = try await onOwnThread { () throws -> (Int32, String) in
            let connection = try LoopbackSocket.connect(port: launcher)
            // A server that never announces itself fails its test within a minute instead of hanging it.
            LoopbackSocket.limitReads(of: connection, to: 60)
            LoopbackSocket.write(request + "\n", to: connection)
            return (connection, LoopbackSocket.readLine(from: connection))
        }
        guard let port = Int(line.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            let rest = await onOwnThread { LoopbackSocket.readToEnd(from: connection) }
            close(connection)
            throw FixtureError(description: "\(arguments.first ?? script) did not start: \(line)\(rest)")
        }
        return FixtureServer(port: port, connection: connection)
    }

    /// Closes the connection, which ends the server; returns at once (it is called from `defer`).
    public func stop() {
        close(connection)
    }

    /// `stop()`, returning once the server has gone (its end of the connection closed with it).
    public func stopped() async {
        let connection = connection
        shutdown(connection, Int32(SHUT_WR))
        _ = await onOwnThread { LoopbackSocket.readToEnd(from: connection) }
        close(connection)
    }
}

/// The launcher this test process starts its fixture servers through, started on first use and left running: it
/// exits when its input closes, that is when the test process ends.
actor FixtureLauncher {
    static let shared = FixtureLauncher()
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/fixture_launcher.py").path

    private var starting: Task<Int, Error>?
    /// Kept open for the life of the test process.
    private var input: FileHandle?

    func port() async throws -> Int {
        if let starting { return try await starting.value }
        let task = Task { try await self.launch() }
        starting = task
        return try await task.value
    }

    private func launch() async throws -> Int {
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [FixtureServer.interpreter, Self.script, FileManager.default.temporaryDirectory.path]
        let output = Pipe()
        let errors = Pipe()
        let input = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = input
        try process.run()
        self.input = input.fileHandleForWriting
        let reader = output.fileHandleForReading
        let line = await onOwnThread {
            var line = Data()
            while !line.contains(UInt8(ascii: "\n")) {
                let chunk = reader.availableData
                if chunk.isEmpty { break }
                line += chunk
            }
            return line
        }
        guard let port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw FixtureError(description: "the fixture launcher did not start: \(stderr)")
        }
        return port
    }
}

/// Blocking loopback TCP for tests: the fixture launcher's connections, and raw HTTP (RawHTTPConnection).
public enum LoopbackSocket {
    /// A socket connected to 127.0.0.1:`port`; the caller closes it.
    public static func connect(port: Int) throws -> Int32 {
        #if canImport(Glibc)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw FixtureError(description: "socket() failed: \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let reason = errno
            close(descriptor)
            throw FixtureError(description: "connect() to port \(port) failed: \(reason)")
        }
        return descriptor
    }

    /// Reads on `descriptor` give up after `seconds` (a read then returns what it has).
    static func limitReads(of descriptor: Int32, to seconds: Int) {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    static func write(_ text: String, to descriptor: Int32) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let sent = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { return }
            bytes = bytes.dropFirst(sent)
        }
    }

    /// Up to and including the first newline (one byte at a time: nothing after it is taken from the connection).
    static func readLine(from descriptor: Int32) -> String {
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while recv(descriptor, &byte, 1, 0) == 1 {
            line.append(byte)
            if byte == UInt8(ascii: "\n") { break }
        }
        return String(decoding: line, as: UTF8.self)
    }

    static func readToEnd(from descriptor: Int32) -> String {
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            data += buffer[0..<count]
        }
        return String(decoding: data, as: UTF8.self)
    }
}
