import CaptureCore
import CaptureTestSupport
import Foundation
import Testing

/// A relay whose login fails, as one does after its password was rotated.
private struct RefusingRelay: ScopedMailTransport {
    static let failure = MailAttemptFailure(
        MailDeliveryError(
            reason: "the SMTP relay refused the login: 535 (server said: 535 5.7.8 Authentication credentials invalid)",
            isPermanent: false),
        scope: .relay)

    func deliver(_ message: MailMessage) async throws(MailDeliveryError) { throw Self.failure.error }
    func attempt(_ message: MailMessage) async throws(MailAttemptFailure) { throw Self.failure }
}

@Suite("capturectl mail")
struct MailCommandTests {
    static func code(in text: String?) -> String? {
        text?.firstMatch(of: /[2-9A-HJ-NP-Z]{4}-[2-9A-HJ-NP-Z]{4}/).map { String($0.output) }
    }

    @Test("mail list and show never print a code unless --body asks; the body names it")
    func listAndShowHideCodesUnlessAsked() async throws {
        let world = try await TestWorld.current()
        try await world.register("mail@example.com")
        let entry = try #require(try await world.service.admin.listMail().first)
        let code = try #require(Self.code(in: entry.text))

        let list = try await CLI.run(["mail", "list"], in: world)
        #expect(list.status == 0, "\(list.stderr)")
        #expect(list.stdout.contains("emailVerification") && list.stdout.contains("mail@example.com"))
        #expect(list.stdout.contains("pending"))
        let json = try await CLI.run(["mail", "list", "--json"], in: world)
        #expect(!json.stdout.contains(code))
        #expect((try json.json() as? [[String: Any]])?.first?["bodyKept"] as? Bool == true)

        let show = try await CLI.run(["mail", "show", "\(entry.id!)"], in: world)
        #expect(show.status == 0 && show.stdout.contains("Confirm your email address") && !show.stdout.contains(code))
        let body = try await CLI.run(["mail", "show", "\(entry.id!)", "--body"], in: world)
        #expect(body.stdout.contains(code))
    }

    @Test("mail retry makes a message due again; sent, suppressed, unknown and malformed ids are refused")
    func retry() async throws {
        let world = try await TestWorld.current()
        try await world.register("mail@example.com")
        _ = try await world.service.recovery.requestPasswordReset(
            FlowRequest(
                parameters: TestWorld.flowParameters(form: "forgotPasswordForm").merging(
                    ["signInEmailAddress": "ghost@example.com"]) { _, new in new }))
        let entries = try await world.service.admin.listMail()
        let pending = try #require(entries.first { $0.status == .pending })
        let suppressed = try #require(entries.first { $0.status == .suppressed })

        let due = try await CLI.run(["mail", "retry", "\(pending.id!)"], in: world)
        #expect(due.status == 0, "\(due.stderr)")
        let refused = try await CLI.run(["mail", "retry", "\(suppressed.id!)"], in: world)
        #expect(refused.status == 1 && refused.stderr.contains("suppressed"))
        #expect(try await CLI.run(["mail", "show", "999999"], in: world).status == 1)
        #expect(try await CLI.run(["mail", "show", "nine"], in: world).status == 2)
    }

    @Test("mail list shows deferred messages and why; mail retry says what is true, never an expiry that is not")
    func deferredMessagesAndWhatRetrySays() async throws {
        let world = try await TestWorld.current()
        try await world.register("first@example.com")
        try await world.register("second@example.com")
        let delivery = MailDelivery(features: world.service, transport: RefusingRelay(), logger: .init(label: "test"))
        #expect(try await delivery.deliverDue() == 0)

        let list = try await CLI.run(["mail", "list"], in: world)
        #expect(list.status == 0, "\(list.stderr)")
        let header = try #require(list.stdout.split(separator: "\n").first)
        #expect(header.contains("STATUS") && header.contains("NEXT ATTEMPT") && header.contains("LAST ERROR"))
        for email in ["first@example.com", "second@example.com"] {
            let line = try #require(list.stdout.split(separator: "\n").first { $0.contains(email) })
            #expect(line.contains("deferred") && line.contains("the SMTP relay refused the login: 535"), "\(line)")
        }
        let json = try #require(try await CLI.run(["mail", "list", "--json"], in: world).json() as? [[String: Any]])
        #expect(json.count == 2)
        for object in json {
            #expect(object["status"] as? String == "deferred" && object["bodyKept"] as? Bool == true)
            #expect((object["lastError"] as? String)?.contains("535") == true && object["nextAttempt"] is String)
        }

        // Retrying one tries the relay again now, for every message that waited for it; its code is live.
        let entries = try await world.service.admin.listMail()
        let first = try #require(entries.first { $0.recipient == "first@example.com" })
        let retry = try await CLI.run(["mail", "retry", "\(first.id!)"], in: world)
        #expect(retry.status == 0, "\(retry.stderr)")
        #expect(retry.stdout.contains("message \(first.id!) is queued again, due now"), "\(retry.stdout)")
        #expect(retry.stdout.contains("it was waiting for the SMTP relay: the SMTP relay refused the login: 535"))
        #expect(retry.stdout.contains("so is 1 other message that was waiting for the SMTP relay"))
        #expect(retry.stdout.contains("its code is valid until \(AdminDocuments.iso(first.bodyExpiresAt))"))
        #expect(retry.stdout.contains("No SMTP relay is configured"), "the repository's settings name none")
        #expect(!retry.stdout.contains("expired"))
        let after = try await world.service.admin.listMail()
        #expect(after.count == 2 && after.allSatisfy { $0.status == .pending && $0.nextAttemptAt <= Date() && $0.text != nil })
        #expect(try await world.service.store.outbox.relayPausedUntil() == nil)

        // A code that really expired: retry says so, and when.
        var expired = try #require(after.first { $0.recipient == "second@example.com" })
        expired.bodyExpiresAt = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 - 60).rounded(.down))
        try await world.service.store.outbox.update(expired)
        let refused = try await CLI.run(["mail", "retry", "\(expired.id!)"], in: world)
        #expect(refused.status == 1)
        #expect(
            refused.stderr.contains("message \(expired.id!)'s code expired at \(AdminDocuments.iso(expired.bodyExpiresAt))"),
            "\(refused.stderr)")
    }
}
