import CaptureCore
import CaptureTestSupport
import Foundation
import Testing

@testable import CaptureOutbound

/// The outbox delivered by `MailDelivery` through the real SMTP transport to aiosmtpd: sent, retried, given up.
@Suite struct OutboxDeliveryTests {
    static func relay(port: Int) -> SMTPRelay {
        SMTPRelay(
            host: "127.0.0.1", port: port, security: .none, from: "capture <no-reply@capture.test>",
            connectTimeoutSeconds: 2, totalTimeoutSeconds: 5)
    }

    static func delivery(_ world: TestWorld, port: Int) -> MailDelivery {
        MailDelivery(service: world.service, transport: SMTPMailTransport(relay: relay(port: port)), logger: .init(label: "test"))
    }

    static func world(backend: TestBackend = .selected) async throws -> TestWorld {
        try await TestWorld.make(backend: backend) { $0.mailFrom = "capture <no-reply@capture.test>" }
    }

    @Test func aRecordedMessageIsDeliveredAndItsBodyForgotten() async throws {
        let maildir = try SMTPDeliveryTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: maildir) }
        let server = try await PythonServer.start("smtp", maildir.path)
        defer { server.stop() }
        let world = try await Self.world(backend: .sqlite)
        try await world.register("deliver@example.test")
        let code = try #require(
            try await world.service.listMail().first?.text?.firstMatch(of: /[2-9A-HJ-NP-Z]{4}-[2-9A-HJ-NP-Z]{4}/)).output

        #expect(try await Self.delivery(world, port: server.port).deliverDue() == 1)
        let messages = try await PythonServer.readMessages(at: SMTPDeliveryTests.deliveredFiles(in: maildir))
        #expect(messages.count == 1)
        #expect(messages.first?.text?.contains(String(code)) == true)
        let entry = try #require(try await world.service.listMail().first)
        #expect(entry.status == .sent && entry.sentAt != nil && entry.text == nil && entry.html == nil)
        // Nor is it left in the database's files: not in freed space, not in the write-ahead log.
        for suffix in ["", "-wal"] {
            let bytes = (try? Data(contentsOf: URL(fileURLWithPath: world.database + suffix))) ?? Data()
            #expect(bytes.range(of: Data(code.utf8)) == nil, "the delivered code is still in capture.sqlite\(suffix)")
        }
        #expect(try await Self.delivery(world, port: server.port).deliverDue() == 0, "sent once")
    }

    @Test func aRelayThatIsDownIsRetriedAfterAPauseAndThenDelivers() async throws {
        let world = try await Self.world()
        try await world.register("retry@example.test")
        #expect(try await Self.delivery(world, port: try unusedLoopbackPort()).deliverDue() == 0)
        var entry = try #require(try await world.service.listMail().first)
        #expect(entry.status == .pending && entry.attempts == 1 && entry.lastError != nil && entry.text != nil)
        #expect(entry.nextAttemptAt == world.time.now() + MailDelivery.retryPauses[0])

        let maildir = try SMTPDeliveryTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: maildir) }
        let server = try await PythonServer.start("smtp", maildir.path)
        defer { server.stop() }
        #expect(try await Self.delivery(world, port: server.port).deliverDue() == 0, "not due yet")
        world.time.advance(by: MailDelivery.retryPauses[0])
        #expect(try await Self.delivery(world, port: server.port).deliverDue() == 1)
        entry = try #require(try await world.service.listMail().first)
        #expect(entry.status == .sent && entry.attempts == 2)
    }

    @Test func aPermanentRefusalFailsAtOnceAndForgetsTheBody() async throws {
        let maildir = try SMTPDeliveryTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: maildir) }
        let server = try await PythonServer.start("smtp", maildir.path)
        defer { server.stop() }
        let world = try await Self.world()
        try await world.register("reject@example.test")
        #expect(try await Self.delivery(world, port: server.port).deliverDue() == 0)
        let entry = try #require(try await world.service.listMail().first)
        #expect(entry.status == .failed && entry.text == nil && entry.lastError?.contains("550") == true)
        await #expect(throws: CaptureError.self) { try await world.service.retryMail(entry.id!) }
    }
}
