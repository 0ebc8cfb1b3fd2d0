import CaptureCore
import CaptureTestSupport
import Foundation
import Testing

@testable import CaptureOutbound

/// A relay that requires STARTTLS and AUTH (aiosmtpd on loopback, its self-signed certificate given as `caFile`),
/// failing as relays do: a wrong password, a refusal of one recipient, a refusal that is the relay's own. A message
/// waits until it can be sent, and only a refused recipient fails it (issue 27).
@Suite struct RelayFailureTests {
    static let password = "the-right-relay-password"

    /// aiosmtpd requiring STARTTLS, then AUTH as "capture" with `password`.
    struct Relay {
        let server: FixtureServer
        let directory: URL
        let maildir: URL
        let caFile: String

        static func start() async throws -> Relay {
            let directory = try SMTPDeliveryTests.temporaryDirectory()
            let certificate = try await TestCertificate.make(in: directory)
            let maildir = directory.appendingPathComponent("mail")
            try FileManager.default.createDirectory(at: maildir, withIntermediateDirectories: true)
            let server = try await PythonServer.start(
                "smtp", maildir.path, "starttls", certificate.certificate, certificate.key, RelayFailureTests.password)
            return Relay(server: server, directory: directory, maildir: maildir, caFile: certificate.certificate)
        }

        /// The relay as the service's settings would name it, with `password` (nil: no login at all).
        func settings(password: String?, caFile: String? = nil) -> SMTPRelay {
            SMTPRelay(
                host: "127.0.0.1", port: server.port, security: .startTLS, username: password == nil ? nil : "capture",
                password: password, from: "Capture <no-reply@capture.test>", connectTimeoutSeconds: 30,
                totalTimeoutSeconds: 60, caFile: caFile ?? self.caFile)
        }

        func delivered() async throws -> [DeliveredMessage] {
            try await PythonServer.readMessages(at: SMTPDeliveryTests.deliveredFiles(in: maildir))
        }

        func stop() {
            server.stop()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    static func world(metrics: CaptureMetrics = .facade) async throws -> TestWorld {
        try await TestWorld.make(metrics: metrics) { $0.mailFrom = "Capture <no-reply@capture.test>" }
    }

    static func delivery(_ world: TestWorld, _ relay: SMTPRelay) -> MailDelivery {
        MailDelivery(features: world.service, transport: SMTPMailTransport(relay: relay), logger: .init(label: "test"))
    }

    static func forgot(_ email: String) -> FlowRequest {
        FlowRequest(
            parameters: TestWorld.flowParameters(form: "forgotPasswordForm").merging(["signInEmailAddress": email]) { $1 })
    }

    static func code(in text: String?) -> String? {
        text?.firstMatch(of: /[2-9A-HJ-NP-Z]{4}-[2-9A-HJ-NP-Z]{4}/).map { String($0.output) }
    }

    /// Polls `condition` (real time) until it holds, for at most `seconds`.
    static func eventually(seconds: Double = 30, _ condition: () async throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return try await condition()
    }

    @Test func aRefusedLoginDefersEveryMessageUntilARestartWithTheRightPasswordDeliversThemWithLiveCodes() async throws {
        let relay = try await Relay.start()
        defer { relay.stop() }
        let recorder = RecordingMetrics()
        let world = try await Self.world(metrics: CaptureMetrics(factory: recorder))
        try await world.register("alice@example.test")
        try await world.register("bob@example.test")
        try await world.service.recovery.requestPasswordReset(Self.forgot("bob@example.test"))
        let recorded = try await world.service.admin.listMail()
        #expect(recorded.count == 3 && recorded.allSatisfy { $0.status == .pending && $0.text != nil })
        world.time.advance(by: 7)

        // The relay refuses the login (535): every message waits, none fails, none loses its body.
        let wrong = Self.delivery(world, relay.settings(password: "last-months-password"))
        #expect(try await wrong.deliverDue() == 0)
        var entries = try await world.service.admin.listMail()
        for entry in entries {
            #expect(entry.status == .deferred)
            #expect(entry.text != nil && entry.text == recorded.first { $0.id == entry.id }?.text)
            #expect(entry.lastError?.contains("the SMTP relay refused the login: 535") == true, "\(entry.lastError ?? "")")
            #expect(entry.lastError?.contains("last-months-password") == false)
            #expect(entry.nextAttemptAt == world.time.now() + MailDelivery.relayPauses[0])
            #expect(entry.deferrals == 1)
        }
        #expect(entries.map(\.attempts).reduce(0, +) == 1, "one login was tried, not one per message")
        #expect(recorder.gauge("capture_mail_oldest_waiting_seconds") == 7)
        #expect(try await world.service.store.outbox.pendingCount() == 3)

        // A message recorded meanwhile is not tried either: no failed login per message.
        try await world.service.recovery.requestPasswordReset(Self.forgot("alice@example.test"))
        #expect(try await wrong.deliverDue() == 0)
        let fresh = try #require(try await world.service.admin.listMail().first)
        #expect(fresh.status == .pending && fresh.attempts == 0 && fresh.kind == .passwordReset)

        // While the login keeps failing the pauses grow, the last one repeating; nothing is tried before a pause
        // ends, and no message ever fails for the relay.
        for run in 1...(MailDelivery.relayPauses.count + 1) {
            let pause = MailDelivery.pause(after: run, in: MailDelivery.relayPauses)
            world.time.advance(by: pause - 1)
            #expect(try await wrong.deliverDue() == 0)
            #expect(try await world.service.admin.listMail().map(\.attempts).reduce(0, +) == run, "tried before the pause ended")
            world.time.advance(by: 1)
            #expect(try await wrong.deliverDue() == 0)
            entries = try await world.service.admin.listMail()
            #expect(entries.count == 4)
            #expect(entries.map(\.attempts).reduce(0, +) == run + 1)
            let next = MailDelivery.pause(after: run + 1, in: MailDelivery.relayPauses)
            for entry in entries {
                #expect(entry.status == .deferred && entry.text != nil, "\(entry.status) after \(run + 1) refused logins")
                #expect(entry.nextAttemptAt == world.time.now() + next)
            }
        }
        #expect(try SMTPDeliveryTests.deliveredFiles(in: relay.maildir).isEmpty)
        let waited = world.time.now().timeIntervalSince(recorded.map(\.createdAt).min()!)
        #expect(recorder.gauge("capture_mail_oldest_waiting_seconds") == waited)
        #expect(waited < Double(world.service.settings.resetCodeMinutes * 60), "the reset codes are still live")

        // The password is fixed and the service restarts: a new delivery with the right one sends everything at
        // once, without waiting out the pause.
        let bodies = Dictionary(uniqueKeysWithValues: try await world.service.admin.listMail().map { ($0.messageID, $0) })
        let restarted = Task { await Self.delivery(world, relay.settings(password: Self.password)).run() }
        defer { restarted.cancel() }
        let allSent = try await Self.eventually {
            let mail = try await world.service.admin.listMail()
            return mail.count == bodies.count && mail.allSatisfy { $0.status == .sent && $0.text == nil }
                && recorder.gauge("capture_mail_oldest_waiting_seconds") == 0
        }
        restarted.cancel()
        await restarted.value
        let outcome = try await world.service.admin.listMail().map { "\($0.status) \($0.lastError ?? "")" }
        #expect(allSent, "\(outcome)")

        let delivered = try await relay.delivered()
        #expect(delivered.count == 4)
        for message in delivered {
            let id = message.message_id.trimmingCharacters(in: CharacterSet(charactersIn: "<>"))
            let entry = try #require(bodies[id], "\(message.message_id) was not in the outbox")
            #expect(message.text == entry.text?.replacingOccurrences(of: "\r\n", with: "\n"), "the body recorded, unchanged")
            #expect(message.rcpt_to == entry.recipient)
        }
        // Every code in the delivered mail still works.
        for entry in bodies.values {
            let code = try #require(Self.code(in: entry.text))
            switch entry.kind {
            case .emailVerification:
                let user = try await world.service.recovery.verifyEmail(code: code, email: entry.recipient)
                #expect(user.emailVerifiedAt != nil)
            case .passwordReset:
                let password = "a new passphrase for \(entry.recipient)"
                let reset = TestWorld.flowParameters(form: "resetPasswordForm").merging(
                    ["newPassword": password, "newPasswordConfirm": password]) { $1 }
                _ = try await world.service.recovery.resetPassword(
                    FlowRequest(parameters: reset), code: code, email: entry.recipient)
            default:
                Issue.record("no \(entry.kind) message was recorded")
            }
        }
    }

    @Test func eachFailureIsToldAsTheRelaysOrTheRecipientsByTheStageLibcurlReportsAndTheEnhancedStatus() async throws {
        let relay = try await Relay.start()
        defer { relay.stop() }
        let cases: [(to: String, relay: SMTPRelay, scope: MailFailureScope, permanent: Bool, says: String)] = [
            ("a@example.test", relay.settings(password: "wrong"), .relay, false, "refused the login: 535"),
            ("a@example.test", relay.settings(password: nil), .relay, false, "MAIL failed: 530"),
            // The system's CAs, which never signed the relay's certificate.
            (
                "a@example.test", relay.settings(password: Self.password, caFile: "/etc/ssl/certs/ca-certificates.crt"), .relay,
                false, "TLS"
            ),
            ("reject@example.test", relay.settings(password: Self.password), .message, true, "RCPT failed: 550"),
            ("busy@example.test", relay.settings(password: Self.password), .message, false, "RCPT failed: 450"),
            ("relaydenied@example.test", relay.settings(password: Self.password), .relay, false, "RCPT failed: 554"),
            ("later@example.test", relay.settings(password: Self.password), .relay, false, "RCPT failed: 451"),
        ]
        for (to, settings, scope, permanent, says) in cases {
            let failure = await #expect(throws: MailAttemptFailure.self, "\(to)") {
                try await SMTPMailTransport(relay: settings).attempt(SMTPDeliveryTests.message(to: to))
            }
            #expect(failure?.scope == scope, "\(to): \(failure?.error.reason ?? "")")
            #expect(failure?.error.isPermanent == permanent, "\(to): \(failure?.error.reason ?? "")")
            #expect(failure?.error.reason.contains(says) == true, "\(to): \(failure?.error.reason ?? "")")
            #expect(failure?.error.reason.contains(Self.password) == false)
        }
        try await SMTPMailTransport(relay: relay.settings(password: Self.password))
            .attempt(SMTPDeliveryTests.message(to: "a@example.test"))
        #expect(try await relay.delivered().map(\.rcpt_to) == ["a@example.test"])
    }

    /// The same classification on libcurl's outcomes as 7.88 reports them (CURLcode values: 7 no connection, 8 a
    /// weird reply, 28 a timeout, 55 a refused command, 60 an untrusted certificate, 67 a refused login).
    @Test(
        arguments: [
            (7, 0, "Failed to connect to 127.0.0.1 port 25", nil, MailFailureScope.relay, false),
            (28, 0, "Operation timed out after 2000 milliseconds", nil, .relay, false),
            (60, 0, "SSL certificate problem: self-signed certificate", nil, .relay, false),
            (67, 535, "Login denied", "535 5.7.8 Authentication credentials invalid", .relay, false),
            (67, 454, "Login denied", "454 4.7.0 Temporary authentication failure", .relay, false),
            (8, 554, "Got unexpected smtp-server response: 554", "554 5.3.2 no service", .relay, false),
            (55, 530, "MAIL failed: 530", "530 5.7.0 Authentication required", .relay, false),
            (55, 553, "MAIL failed: 553", "553 5.1.8 sender address rejected", .relay, false),
            (55, 554, "DATA failed: 554", "554 5.6.0 content refused", .relay, false),
            (55, 550, "RCPT failed: 550", "550 5.1.1 <x@example.test>: user unknown", .message, true),
            (55, 553, "RCPT failed: 553", "553 5.1.3 bad recipient address syntax", .message, true),
            (55, 550, "RCPT failed: 550", "550 no such user here", .message, true),
            (55, 552, "RCPT failed: 552", "552-5.2.2 mailbox full", .message, true),
            (55, 450, "RCPT failed: 450", "450 4.2.1 mailbox busy", .message, false),
            (55, 554, "RCPT failed: 554", "554 5.7.1 <x@example.test>: Relay access denied", .relay, false),
            (55, 553, "RCPT failed: 553", "553 5.1.7 bad sender mailbox", .relay, false),
            (55, 452, "RCPT failed: 452", "452 4.5.3 too many recipients", .relay, false),
            (55, 421, "RCPT failed: 421", "421 4.4.2 connection dropped", .relay, false),
            (55, 0, "Failed sending data to the peer", nil, .relay, false),
        ] as [(UInt32, Int, String, String?, MailFailureScope, Bool)])
    func libcurlsOutcomeIsTheRelaysUnlessARecipientWasRefused(
        code: UInt32, status: Int, diagnostic: String, reply: String?, scope: MailFailureScope, permanent: Bool
    ) {
        let failure = SMTPFailure.failure(
            for: CurlOutcome(code: code, responseCode: status, errorText: diagnostic, lastServerReply: reply))
        #expect(failure.scope == scope, "\(failure.error.reason)")
        #expect(failure.error.isPermanent == permanent, "\(failure.error.reason)")
        #expect(failure.error.reason.contains(reply ?? diagnostic))
    }

    @Test func onlyTheRecipientTheRelayRefusesFailsAndKeepsItsBodyForARetry() async throws {
        let relay = try await Relay.start()
        defer { relay.stop() }
        let world = try await Self.world()
        for email in ["reject@example.test", "busy@example.test", "one@example.test", "two@example.test"] {
            try await world.register(email)
        }
        let delivery = Self.delivery(world, relay.settings(password: Self.password))
        #expect(try await delivery.deliverDue() == 2)
        let entries = Dictionary(uniqueKeysWithValues: try await world.service.admin.listMail().map { ($0.recipient, $0) })
        let refused = try #require(entries["reject@example.test"])
        #expect(refused.status == .failed && refused.lastError?.contains("550") == true)
        #expect(refused.text != nil, "kept until its code expires")
        let busy = try #require(entries["busy@example.test"])
        #expect(busy.status == .pending && busy.lastError?.contains("450") == true && busy.text != nil)
        #expect(busy.nextAttemptAt == world.time.now() + MailDelivery.retryPauses[0], "it waits alone")
        #expect(entries["one@example.test"]?.status == .sent && entries["two@example.test"]?.status == .sent)
        #expect(try await world.service.store.outbox.relayPausedUntil() == nil)

        // A recipient deferred again and again waits on (its pauses growing), and never fails for it.
        for attempt in 2...(MailDelivery.retryPauses.count + 1) {
            world.time.advance(by: MailDelivery.pause(after: attempt - 1, in: MailDelivery.retryPauses))
            #expect(try await delivery.deliverDue() == 0)
            let again = try await world.service.admin.findMail(busy.id!)
            #expect(again.status == .pending && again.attempts == attempt)
            #expect(again.nextAttemptAt == world.time.now() + MailDelivery.pause(after: attempt, in: MailDelivery.retryPauses))
        }

        // The refused message can be sent again while its code lives.
        let retry = try await world.service.admin.retryMail(refused.id!)
        #expect(retry.entry.status == .pending && retry.entry.text == refused.text)
        #expect(try await delivery.deliverDue() == 0)
        #expect(try await world.service.admin.findMail(refused.id!).status == .failed)
    }

    @Test func aRefusalThatIsNotAboutTheRecipientDefersTheOutboxAndTheOthersAreTriedFirst() async throws {
        let relay = try await Relay.start()
        defer { relay.stop() }
        let world = try await Self.world()
        try await world.register("relaydenied@example.test")
        try await world.register("other@example.test")
        let delivery = Self.delivery(world, relay.settings(password: Self.password))

        #expect(try await delivery.deliverDue() == 0)
        var entries = Dictionary(uniqueKeysWithValues: try await world.service.admin.listMail().map { ($0.recipient, $0) })
        #expect(entries.count == 2 && entries.values.allSatisfy { $0.status == .deferred && $0.text != nil })
        #expect(entries["relaydenied@example.test"]?.attempts == 1 && entries["other@example.test"]?.attempts == 0)
        #expect(entries["other@example.test"]?.lastError?.contains("554") == true, "it says why it waits")

        // After the pause the message not tried yet goes first: it is delivered, the relay works, and the one the
        // relay keeps refusing waits again alone.
        world.time.advance(by: MailDelivery.relayPauses[0])
        #expect(try await delivery.deliverDue() == 1)
        entries = Dictionary(uniqueKeysWithValues: try await world.service.admin.listMail().map { ($0.recipient, $0) })
        #expect(entries["other@example.test"]?.status == .sent)
        let refused = try #require(entries["relaydenied@example.test"])
        #expect(refused.status == .deferred && refused.attempts == 2 && refused.text != nil)
        #expect(refused.deferrals == 1, "the relay worked in between: its pauses start again")
        #expect(try await relay.delivered().map(\.rcpt_to) == ["other@example.test"])
    }

    @Test func aCodeThatExpiresWhileItWaitsFailsWithThatReasonAndRetrySaysWhen() async throws {
        let relay = try await Relay.start()
        defer { relay.stop() }
        let world = try await Self.world()
        try await world.registerProven("late@example.test")
        try await world.service.recovery.requestPasswordReset(Self.forgot("late@example.test"))
        let delivery = Self.delivery(world, relay.settings(password: "wrong"))
        #expect(try await delivery.deliverDue() == 0)
        let waiting = try await world.service.admin.listMail()
        #expect(waiting.contains { $0.kind == .passwordReset } && waiting.allSatisfy { $0.status == .deferred })

        world.time.advance(by: TimeInterval(world.service.settings.resetCodeMinutes * 60))
        #expect(try await delivery.deliverDue() == 0)
        let entries = try await world.service.admin.listMail()
        let reset = try #require(entries.first { $0.kind == .passwordReset })
        #expect(reset.status == .failed && reset.text == nil && reset.html == nil)
        #expect(reset.lastError?.hasPrefix(MailDelivery.expiredBeforeDelivery) == true)
        #expect(reset.lastError?.contains("535") == true, "and what it waited for: \(reset.lastError ?? "")")
        let verification = try #require(entries.first { $0.kind == .emailVerification })
        #expect(verification.status == .deferred && verification.text != nil, "its code lives 24 hours")

        let refusal = await #expect(throws: CaptureError.self) { try await world.service.admin.retryMail(reset.id!) }
        #expect(refusal?.errorDescription.contains("expired at \(AdminDocuments.iso(reset.bodyExpiresAt))") == true)
    }
}
