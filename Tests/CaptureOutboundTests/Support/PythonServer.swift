import CaptureTestSupport
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Fixtures/loopback_servers.py's servers (SMTP, HTTP), each a `FixtureServer` for the length of a test.
enum PythonServer {
    static let interpreter = FixtureServer.interpreter
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/loopback_servers.py").path

    static func start(_ command: String, _ arguments: String...) async throws -> FixtureServer {
        try await FixtureServer.start(script: script, arguments: [command] + arguments)
    }

    /// Runs the script's `read` command on delivered messages and decodes its JSON, in the order given.
    static func readMessages(at paths: [String]) async throws -> [DeliveredMessage] {
        let data = try await onOwnThread {
            let process = TestProcess()
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

typealias ServerError = FixtureError

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
            let process = TestProcess()
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
