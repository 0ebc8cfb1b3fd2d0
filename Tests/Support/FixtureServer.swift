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

/// A real server (aiosmtpd, an OpenID Connect provider, …) run by a Python script as a child process for the length
/// of a test. The script prints its port on the first line and exits when its input closes, so `stop()` (in a
/// `defer`) ends it, and so does the test process going away.
public final class FixtureServer: @unchecked Sendable {
    public let port: Int
    private let process: TestProcess
    private let input: FileHandle

    /// Debian's python3 packages install for the system interpreter; a python3 earlier on PATH may not have them.
    public static let interpreter =
        FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") ? "/usr/bin/python3" : "python3"

    private init(port: Int, process: TestProcess, input: FileHandle) {
        self.port = port
        self.process = process
        self.input = input
    }

    public static func start(script: String, arguments: [String]) async throws -> FixtureServer {
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [interpreter, script] + arguments
        let output = Pipe()
        let errors = Pipe()
        let input = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = input
        try process.run()
        // The first line is the port; an empty read means the script died before listening.
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
        guard let port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        else {
            await process.ended(signal: SIGKILL, grace: 0)
            let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw FixtureError(description: "\(arguments.first ?? script) did not start: \(stderr)")
        }
        return FixtureServer(port: port, process: process, input: input.fileHandleForWriting)
    }

    /// Closes the server's input, which ends it; SIGKILL only if it has not gone within 5 s. Returns at once (it
    /// is called from `defer`): the waiting happens on a thread of its own.
    public func stop() {
        try? input.close()
        process.end(grace: 5)
    }

    /// `stop()`, returning once the server has gone (its port no longer answers).
    public func stopped() async {
        try? input.close()
        await process.ended(grace: 5)
    }
}
