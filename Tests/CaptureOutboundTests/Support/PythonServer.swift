import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs blocking work (waiting for a child process) on a thread of its own, so the tests that measure whether the
/// cooperative pool stays free are not starved by the other tests' set-up.
func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result(catching: body)) }
    }
}

/// One of Fixtures/loopback_servers.py's servers, running as a child process for the length of a test.
/// Call `stop()` in a `defer`; the script also exits by itself when the test process goes away.
final class PythonServer {
    let port: Int
    private let process: Process
    /// Closing it stops the server (the script exits at end of input).
    private let input: FileHandle

    /// Debian's python3-aiosmtpd installs for the system interpreter; a python3 earlier on PATH may not have it.
    static let interpreter =
        FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") ? "/usr/bin/python3" : "python3"
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/loopback_servers.py").path

    private init(port: Int, process: Process, input: FileHandle) {
        self.port = port
        self.process = process
        self.input = input
    }

    static func start(_ command: String, _ arguments: String...) async throws -> PythonServer {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [interpreter, script, command] + arguments
        let output = Pipe()
        let errors = Pipe()
        let input = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = input
        try process.run()
        // The first line is the port; an empty read means the script died before listening.
        let reader = output.fileHandleForReading
        let line = try await onOwnThread {
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
            forceStop(process)
            let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw ServerError(description: "\(command) server did not start: \(stderr)")
        }
        return PythonServer(port: port, process: process, input: input.fileHandleForWriting)
    }

    /// Closes the server's input, which ends it; SIGKILL only if it has not gone within 5 s.
    func stop() {
        try? input.close()
        let deadline = Date() + 5
        while process.isRunning && Date() < deadline { usleep(10_000) }
        Self.forceStop(process)
    }

    /// SIGKILL, not Process.terminate(): a child spawned from a Swift concurrency thread inherits that thread's
    /// blocked signals, SIGTERM among them, and would outlive the test (and hang waitUntilExit).
    private static func forceStop(_ process: Process) {
        if process.isRunning { _ = kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// Runs the script's `read` command on delivered messages and decodes its JSON, in the order given.
    static func readMessages(at paths: [String]) async throws -> [DeliveredMessage] {
        let data = try await onOwnThread {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [interpreter, script, "read"] + paths
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return data
        }
        return try JSONDecoder().decode([DeliveredMessage].self, from: data)
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

/// A self-signed certificate for 127.0.0.1 (openssl, one day), so TLS tests can check that an unknown certificate
/// is refused and that the one named as CA file is accepted.
struct TestCertificate: Sendable {
    var certificate: String
    var key: String

    static func make(in directory: URL) async throws -> TestCertificate {
        let made = TestCertificate(
            certificate: directory.appendingPathComponent("cert.pem").path,
            key: directory.appendingPathComponent("key.pem").path)
        let status = try await onOwnThread {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [
                "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", made.key, "-out", made.certificate, "-days", "1", "-subj", "/CN=127.0.0.1",
                "-addext", "subjectAltName=IP:127.0.0.1",
            ]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            return process.terminationStatus
        }
        guard status == 0 else { throw ServerError(description: "openssl could not make a certificate") }
        return made
    }
}
