import CaptureCore
import Foundation
import Testing

@testable import CaptureOutbound

/// Certificate checks stay on: a self-signed server is refused until its certificate is named as the CA file.
@Suite struct TLSTests {
    static func relay(port: Int, security: SMTPRelay.Security, caFile: String?) -> SMTPRelay {
        SMTPRelay(
            host: "127.0.0.1", port: port, security: security, from: "no-reply@capture.test",
            connectTimeoutSeconds: 30, totalTimeoutSeconds: 60, caFile: caFile)
    }

    @Test(arguments: [("starttls", SMTPRelay.Security.startTLS), ("smtps", .implicitTLS)])
    func mailGoesOutOverTLSOnlyToACertificateItTrusts(mode: String, security: SMTPRelay.Security) async throws {
        let directory = try SMTPDeliveryTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let certificate = try await TestCertificate.make(in: directory)
        let maildir = directory.appendingPathComponent("mail")
        try FileManager.default.createDirectory(at: maildir, withIntermediateDirectories: true)
        let server = try await PythonServer.start("smtp", maildir.path, mode, certificate.certificate, certificate.key)
        defer { server.stop() }

        let untrusting = SMTPMailTransport(relay: Self.relay(port: server.port, security: security, caFile: nil))
        let error = await #expect(throws: MailDeliveryError.self) {
            try await untrusting.deliver(SMTPDeliveryTests.message(to: "a@example.test"))
        }
        #expect(error?.isPermanent == false)
        #expect(try SMTPDeliveryTests.deliveredFiles(in: maildir).isEmpty)

        let trusting = SMTPMailTransport(
            relay: Self.relay(port: server.port, security: security, caFile: certificate.certificate))
        try await trusting.deliver(SMTPDeliveryTests.message(to: "a@example.test"))
        #expect(try SMTPDeliveryTests.deliveredFiles(in: maildir).count == 1)
    }

    @Test func startTLSRequiredButNotOfferedIsRefusedBeforeTheMessageGoesInTheClear() async throws {
        let maildir = try SMTPDeliveryTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: maildir) }
        let server = try await PythonServer.start("smtp", maildir.path)
        defer { server.stop() }

        let error = await #expect(throws: MailDeliveryError.self) {
            try await SMTPMailTransport(relay: Self.relay(port: server.port, security: .startTLS, caFile: nil))
                .deliver(SMTPDeliveryTests.message(to: "a@example.test"))
        }
        #expect(error?.isPermanent == false)
        #expect(error?.reason.contains("STARTTLS") == true)
        #expect(try SMTPDeliveryTests.deliveredFiles(in: maildir).isEmpty)
    }

    @Test func httpsVerifiesTheServerCertificate() async throws {
        let directory = try SMTPDeliveryTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let certificate = try await TestCertificate.make(in: directory)
        try Data("secure\n".utf8).write(to: directory.appendingPathComponent("hello.txt"))
        let server = try await PythonServer.start("http", directory.path, certificate.certificate, certificate.key)
        defer { server.stop() }
        let url = "https://127.0.0.1:\(server.port)/hello.txt"

        let error = await #expect(throws: OutboundHTTPError.self) {
            try await OutboundHTTPClient().send(OutboundHTTPRequest(url: url))
        }
        #expect(error?.kind == .tlsFailed)

        let response = try await OutboundHTTPClient().send(
            OutboundHTTPRequest(url: url, caFile: certificate.certificate))
        #expect(response.status == 200)
        #expect(response.body == Data("secure\n".utf8))
    }
}
