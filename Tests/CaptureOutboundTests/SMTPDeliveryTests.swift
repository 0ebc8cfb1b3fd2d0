import CaptureCore
import CaptureTestSupport
import Foundation
import Testing

@testable import CaptureOutbound

/// SMTPMailTransport against a real SMTP server (aiosmtpd) on loopback, read back by Python's email package.
@Suite struct SMTPDeliveryTests {
    static func relay(port: Int, password: String? = nil, connect: Double = 2, total: Double = 5) -> SMTPRelay {
        SMTPRelay(
            host: "127.0.0.1", port: port, security: .none, username: password == nil ? nil : "capture",
            password: password, from: "Capture <no-reply@capture.test>", connectTimeoutSeconds: connect,
            totalTimeoutSeconds: total)
    }

    static func message(to: String, id: String = UUID().uuidString) -> MailMessage {
        MailMessage(
            from: "Capture Bridge <no-reply@capture.test>", to: to, subject: "Votre code de vérification",
            text: "Bonjour Zoë,\nvotre code : 482913\n", messageID: id)
    }

    static func deliveredFiles(in maildir: URL) throws -> [String] {
        let new = maildir.appendingPathComponent("new")
        return try FileManager.default.contentsOfDirectory(atPath: new.path).map { new.appendingPathComponent($0).path }
    }

    static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("outbound-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    @Test func deliversNonASCIIMessageWithHTMLPartThatDecodesIntact() async throws {
        let maildir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: maildir) }
        let server = try await PythonServer.start("smtp", maildir.path)
        defer { server.stop() }

        // Long enough to need several encoded-words and soft line breaks; a leading dot and trailing spaces are
        // the lines SMTP and quoted-printable most often damage.
        let subject = "Réinitialisez votre mot de passe — код 482913 — パスワードの再設定 ✉️ pour Zoë Ångström"
        let text =
            "Bonjour Zoë,\r\n\r\nVotre code : 482913\n.\n. une ligne qui commence par un point  \n"
            + String(repeating: "Grüße aus Köln, ", count: 12) + "\nfin"
        let html = "<p>Bonjour <b>Zoë</b>,</p>\n<p>Votre code&nbsp;: <code>482913</code> — ✓</p>"
        let transport = SMTPMailTransport(relay: Self.relay(port: server.port))
        try await transport.deliver(
            MailMessage(
                from: "Équipe Capture <no-reply@capture.test>", to: "zoe@example.test",
                subject: subject, text: text, html: html, messageID: "m-1"))

        let files = try Self.deliveredFiles(in: maildir)
        #expect(files.count == 1)
        let delivered = try #require(try await PythonServer.readMessages(at: files).first)
        #expect(delivered.defects.isEmpty)
        #expect(delivered.subject == subject)
        #expect(delivered.from == "Équipe Capture <no-reply@capture.test>")
        // The recipient is the stored address itself (EmailAddress); the sender's name shows the encoded-word.
        #expect(delivered.to == "zoe@example.test")
        #expect(delivered.mail_from == "no-reply@capture.test")
        #expect(delivered.rcpt_to == "zoe@example.test")
        #expect(delivered.message_id == "<m-1@capture.test>")
        #expect(delivered.content_type == "multipart/alternative")
        #expect(!delivered.date.isEmpty)
        // Python hands back text parts with "\n" line ends; the CRLF before a boundary is the boundary's, not the text's.
        #expect(delivered.text == text.replacingOccurrences(of: "\r\n", with: "\n"))
        #expect(delivered.html == html)
    }

    @Test func nothingListeningIsATemporaryFailureAtOnce() async throws {
        let port = try unusedLoopbackPort()
        let started = ContinuousClock.now
        let error = await #expect(throws: MailDeliveryError.self) {
            try await SMTPMailTransport(relay: Self.relay(port: port, connect: 60, total: 120))
                .deliver(Self.message(to: "a@example.test"))
        }
        #expect(error?.isPermanent == false)
        #expect(error?.reason.contains("could not connect") == true)
        // A refused connection is reported when it happens, not when the 60 s connect timeout ends: the reason
        // above says so. The clock only says "it ended" (TestTiming.notForever).
        #expect(ContinuousClock.now - started < TestTiming.notForever)
    }

    @Test func silentServerTimesOutAndTheCallReturns() async throws {
        let listener = try SilentListener()
        defer { listener.stop() }
        let transport = SMTPMailTransport(
            relay: Self.relay(port: listener.port, connect: 1, total: 1.5), client: CurlClient(threadCount: 4))
        let started = ContinuousClock.now

        let errors = await withTaskGroup(of: MailDeliveryError?.self) { group in
            for index in 0..<4 {
                group.addTask {
                    do throws(MailDeliveryError) {
                        try await transport.deliver(Self.message(to: "u\(index)@example.test"))
                        return nil
                    } catch { return error }
                }
            }
            return await group.reduce(into: [MailDeliveryError?]()) { $0.append($1) }
        }
        let elapsed = ContinuousClock.now - started

        #expect(errors.count == 4)
        for error in errors {
            #expect(error?.isPermanent == false)
            #expect(error?.reason.contains("timed out") == true)
        }
        // libcurl counts the server's greeting as part of connecting, so the connect timeout (1 s) is what fires.
        #expect(elapsed >= .seconds(0.9))
        // Without the timeouts the calls would never return (TestTiming.notForever).
        #expect(elapsed < TestTiming.notForever)
    }

    @Test func recipientRefusedWith550IsPermanentAndTheReasonHoldsNoSecret() async throws {
        let maildir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: maildir) }
        let server = try await PythonServer.start("smtp", maildir.path)
        defer { server.stop() }

        let transport = SMTPMailTransport(relay: Self.relay(port: server.port, password: "relay-secret-pw"))
        let error = await #expect(throws: MailDeliveryError.self) {
            try await transport.deliver(Self.message(to: "reject@example.test"))
        }
        #expect(error?.isPermanent == true)
        #expect(error?.reason.contains("550") == true)
        #expect(error?.reason.contains("no such user") == true)
        #expect(error?.reason.contains("482913") == false)
        #expect(error?.reason.contains("relay-secret-pw") == false)
        #expect(try Self.deliveredFiles(in: maildir).isEmpty)
    }

    @Test func recipientDeferredWith451IsTemporary() async throws {
        let maildir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: maildir) }
        let server = try await PythonServer.start("smtp", maildir.path)
        defer { server.stop() }

        let error = await #expect(throws: MailDeliveryError.self) {
            try await SMTPMailTransport(relay: Self.relay(port: server.port)).deliver(
                Self.message(to: "later@example.test"))
        }
        #expect(error?.isPermanent == false)
        #expect(error?.reason.contains("451") == true)
    }

    @Test(arguments: [
        ("subject", "Code\r\nBcc: victim@example.test"), ("to", "a@example.test\nBcc: victim@example.test"),
        ("from", "x@capture.test\rBcc: victim@example.test"),
    ])
    func lineBreakInAHeaderIsRefusedBeforeAnythingIsSent(field: String, value: String) async throws {
        // A port nothing listens on: had the transport tried to send, the error would be a refused connection.
        let port = try unusedLoopbackPort()
        var message = Self.message(to: "a@example.test")
        switch field {
        case "subject": message.subject = value
        case "to": message.to = value
        default: message.from = value
        }
        let error = await #expect(throws: MailDeliveryError.self) {
            try await SMTPMailTransport(relay: Self.relay(port: port)).deliver(message)
        }
        #expect(error?.isPermanent == true)
        #expect(error?.reason.contains("line break") == true)
    }

    @Test func twentyConcurrentDeliveriesThroughFourThreadsAllArrive() async throws {
        let maildir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: maildir) }
        let server = try await PythonServer.start("smtp", maildir.path)
        defer { server.stop() }
        let transport = SMTPMailTransport(relay: Self.relay(port: server.port), client: CurlClient(threadCount: 4))

        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<20 {
                group.addTask {
                    try await transport.deliver(Self.message(to: "user\(index)@example.test", id: "c-\(index)"))
                }
            }
            try await group.waitForAll()
        }

        let recipients = try await PythonServer.readMessages(at: Self.deliveredFiles(in: maildir)).map(\.rcpt_to)
        #expect(Set(recipients) == Set((0..<20).map { "user\($0)@example.test" }))
    }

    /// The server answers none of these messages until all of them are in flight at once. Swift's cooperative pool
    /// has one thread per core, so if a delivery held a pool thread while libcurl waited, no more than that many
    /// could be in flight, the server would never answer, and every delivery would fail with its 451. (A ticking
    /// task shows the same thing but not reliably: the other suites running in parallel load the pool too.)
    @Test func moreDeliveriesThanTheCooperativePoolHasThreadsAreInFlightAtOnce() async throws {
        let maildir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: maildir) }
        let server = try await PythonServer.start("smtp", maildir.path)
        defer { server.stop() }
        let count = ProcessInfo.processInfo.activeProcessorCount + 2
        let transport = SMTPMailTransport(relay: Self.relay(port: server.port), client: CurlClient(threadCount: count))

        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<count {
                group.addTask {
                    try await transport.deliver(Self.message(to: "together-\(count)-\(index)@example.test"))
                }
            }
            try await group.waitForAll()
        }
        #expect(try Self.deliveredFiles(in: maildir).count == count)
    }

    @Test func cancellingTheCallerStopsARunningTransfer() async throws {
        let listener = try SilentListener()
        defer { listener.stop() }
        let transport = SMTPMailTransport(
            relay: Self.relay(port: listener.port, connect: 300, total: 600), client: CurlClient(threadCount: 1))
        let started = ContinuousClock.now
        let delivery = Task { () -> MailDeliveryError? in
            do throws(MailDeliveryError) {
                try await transport.deliver(Self.message(to: "a@example.test"))
                return nil
            } catch { return error }
        }
        // Running: connected (the kernel completed the handshake; the listener never accepts), waiting for a greeting.
        #expect(try await AcceptQueue.reaches(1, port: listener.port), "the transfer never connected")
        delivery.cancel()
        let error = await delivery.value
        #expect(error?.isPermanent == false)
        #expect(error?.reason.contains("cancelled") == true)
        // Without cancellation the call would last until the 300 s connect timeout. "cancelled" above comes only
        // from the progress callback's abort (a timeout says "timed out"); the clock only says "it ended".
        #expect(ContinuousClock.now - started < TestTiming.notForever)
    }
}
