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
            connectTimeoutSeconds: 30, totalTimeoutSeconds: 60)
    }

    static func delivery(_ world: TestWorld, port: Int) -> MailDelivery {
        MailDelivery(
            features: world.service, transport: SMTPMailTransport(relay: relay(port: port)), logger: .init(label: "test"))
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
            try await world.service.admin.listMail().first?.text?.firstMatch(of: /[2-9A-HJ-NP-Z]{4}-[2-9A-HJ-NP-Z]{4}/)
        ).output

        #expect(try await Self.delivery(world, port: server.port).deliverDue() == 1)
        let messages = try await PythonServer.readMessages(at: SMTPDeliveryTests.deliveredFiles(in: maildir))
        #expect(messages.count == 1)
        #expect(messages.first?.text?.contains(String(code)) == true)
        let entry = try #require(try await world.service.admin.listMail().first)
        #expect(entry.status == .sent && entry.sentAt != nil && entry.text == nil && entry.html == nil)
        // Nor is it left in the database's files: not in freed space, not in the write-ahead log.
        for suffix in ["", "-wal"] {
            let bytes = (try? Data(contentsOf: URL(fileURLWithPath: world.database + suffix))) ?? Data()
            #expect(bytes.range(of: Data(code.utf8)) == nil, "the delivered code is still in capture.sqlite\(suffix)")
        }
        #expect(try await Self.delivery(world, port: server.port).deliverDue() == 0, "sent once")
    }

    @Test func aRelayThatIsDownDefersTheOutboxAndDeliversOnceItIsBack() async throws {
        let world = try await Self.world()
        try await world.register("retry@example.test")
        try await world.register("other@example.test")
        let down = Self.delivery(world, port: try unusedLoopbackPort())
        #expect(try await down.deliverDue() == 0)
        var entries = try await world.service.admin.listMail()
        #expect(entries.count == 2)
        #expect(
            entries.allSatisfy { $0.status == .deferred && $0.text != nil && $0.lastError?.contains("could not connect") == true }
        )
        #expect(entries.map(\.attempts).reduce(0, +) == 1)
        #expect(entries.allSatisfy { $0.nextAttemptAt == world.time.now() + MailDelivery.relayPauses[0] })

        let maildir = try SMTPDeliveryTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: maildir) }
        let server = try await PythonServer.start("smtp", maildir.path)
        defer { server.stop() }
        let up = Self.delivery(world, port: server.port)
        #expect(try await up.deliverDue() == 0, "the outbox waits out its pause")
        world.time.advance(by: MailDelivery.relayPauses[0])
        #expect(try await up.deliverDue() == 2)
        entries = try await world.service.admin.listMail()
        #expect(entries.count == 2 && entries.allSatisfy { $0.status == .sent && $0.text == nil && $0.deferrals == 0 })
    }

    @Test func aRefusedRecipientFailsAtOnceAndKeepsItsBodyOnlyUntilItsCodeExpires() async throws {
        let maildir = try SMTPDeliveryTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: maildir) }
        let server = try await PythonServer.start("smtp", maildir.path)
        defer { server.stop() }
        let world = try await Self.world()
        try await world.register("reject@example.test")
        #expect(try await Self.delivery(world, port: server.port).deliverDue() == 0)
        var entry = try #require(try await world.service.admin.listMail().first)
        #expect(entry.status == .failed && entry.text != nil && entry.lastError?.contains("550") == true)
        #expect(try await world.service.admin.retryMail(entry.id!).entry.status == .pending)

        world.time.advance(by: 24 * 3600)
        #expect(try await Self.delivery(world, port: server.port).deliverDue() == 0)
        entry = try #require(try await world.service.admin.listMail().first)
        #expect(entry.status == .failed && entry.text == nil && entry.html == nil)
        #expect(entry.lastError?.hasPrefix(MailDelivery.expiredBeforeDelivery) == true)
        await #expect(throws: CaptureError.self) { try await world.service.admin.retryMail(entry.id!) }
    }
}
