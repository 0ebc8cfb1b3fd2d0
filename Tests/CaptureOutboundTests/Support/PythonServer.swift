import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One of Fixtures/loopback_servers.py's servers, running as a child process for the length of a test.
/// Call `stop()` in a `defer`; the script also exits by itself when the test process goes away.
final class PythonServer {
    let port: Int
    private let process: Process

    /// Debian's python3-aiosmtpd installs for the system interpreter; a python3 earlier on PATH may not have it.
    static let interpreter =
        FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") ? "/usr/bin/python3" : "python3"
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/loopback_servers.py").path

    init(_ command: String, _ argument: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [Self.interpreter, Self.script, command, argument]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // The first line is the port; an empty read means the script died before listening.
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line += chunk
        }
        guard let port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        else {
            Self.forceStop(process)
            let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw ServerError(description: "\(command) server did not start: \(stderr)")
        }
        self.port = port
        self.process = process
    }

    func stop() { Self.forceStop(process) }

    /// SIGKILL, not Process.terminate(): a child spawned from a Swift concurrency thread inherits that thread's
    /// blocked signals, SIGTERM among them, and would outlive the test (and hang waitUntilExit).
    private static func forceStop(_ process: Process) {
        if process.isRunning { _ = kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// Runs the script's `read` command on one delivered message and decodes its JSON.
    static func readMessage(at path: String) throws -> DeliveredMessage {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [interpreter, script, "read", path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return try JSONDecoder().decode(DeliveredMessage.self, from: data)
    }
}

struct ServerError: Error, CustomStringConvertible {
    var description: String
}

/// A message as Python's email package reads it back out of the maildir (headers decoded, bodies decoded).
struct DeliveredMessage: Decodable {
    var from: String
    var to: String
    var subject: String
    var message_id: String
    var date: String
    var content_type: String
    var mail_from: String
    var rcpt_to: String
    var text: String?
    var html: String?
    var defects: [String]
}
