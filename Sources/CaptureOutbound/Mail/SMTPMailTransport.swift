import CaptureCore
import Foundation
import Logging

/// Delivers mail through an SMTP relay with libcurl: one connection per message, on `CurlClient`'s threads.
/// One attempt per call: retrying is the outbox's job, guided by whom a failure concerns (`attempt`, `SMTPFailure`).
public struct SMTPMailTransport: ScopedMailTransport {
    public let relay: SMTPRelay
    private let client: CurlClient
    private let logger: Logger
    private let now: @Sendable () -> Date

    public init(
        relay: SMTPRelay, client: CurlClient = .shared, logger: Logger = Logger(label: "capture.mail.smtp"),
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.relay = relay
        self.client = client
        self.logger = logger
        self.now = now
    }

    /// Sends one message. The header From is the message's own (the relay's `from` when that is empty), and the
    /// envelope sender is its bare address.
    public func deliver(_ message: MailMessage) async throws(MailDeliveryError) {
        do throws(MailAttemptFailure) {
            try await attempt(message)
        } catch {
            throw error.error
        }
    }

    /// `deliver`, saying whether a failure is the relay's (every message would meet it) or this message's.
    public func attempt(_ message: MailMessage) async throws(MailAttemptFailure) {
        var message = message
        if message.from.isEmpty { message.from = relay.from }
        let mime: MIMEMessage
        do throws(MailDeliveryError) {
            mime = try MIMEMessage(message, date: now(), boundary: UUID().uuidString)
        } catch {
            // A sender that is not one plain address is the settings' fault, shared by every message: it waits.
            throw MailAttemptFailure(error, scope: Self.isPlainSender(message.from) ? .message : .relay)
        }
        let transfer: CurlTransfer
        do throws(MailDeliveryError) {
            transfer = try self.transfer(for: mime)
        } catch {
            throw MailAttemptFailure(error, scope: .relay)
        }
        let outcome = await client.perform(transfer)
        // The message id is the one thing logged: no address, subject or body (bodies hold one-time codes).
        if outcome.succeeded {
            logger.debug("mail delivered", metadata: ["message_id": "\(message.messageID)"])
            return
        }
        let failure = SMTPFailure.failure(for: outcome)
        logger.info(
            "mail delivery failed",
            metadata: [
                "message_id": "\(message.messageID)", "reason": "\(failure.error.reason)",
                "permanent": "\(failure.error.isPermanent)", "concerns": "\(failure.scope.rawValue)",
            ])
        throw failure
    }

    private static func isPlainSender(_ from: String) -> Bool {
        !from.unicodeScalars.contains { $0 == "\r" || $0 == "\n" || $0 == "\0" } && MailAddress(from) != nil
    }

    func transfer(for mime: MIMEMessage) throws(MailDeliveryError) -> CurlTransfer {
        // The host goes into a URL: anything that could end the authority part (or add credentials) is refused.
        let host = relay.host
        guard !host.isEmpty, host.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && !"/@?#\\".utf8.contains($0) }),
            (1...65535).contains(relay.port)
        else { throw MailDeliveryError(reason: "the SMTP relay host or port is not valid", isPermanent: false) }
        if relay.password != nil, relay.security == .none, !Self.isLoopback(host) {
            throw MailDeliveryError(
                reason: "refusing to send the relay password without TLS to a host that is not loopback",
                isPermanent: false)
        }
        let scheme = relay.security == .implicitTLS ? "smtps" : "smtp"
        let authority = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        let envelope = CurlTransfer.SMTPEnvelope(
            mailFrom: mime.from.address, recipients: [mime.to.address], requireStartTLS: relay.security == .startTLS,
            username: relay.username, password: relay.password, message: mime.bytes)
        return CurlTransfer(
            url: "\(scheme)://\(authority):\(relay.port)", protocols: scheme,
            connectTimeoutSeconds: relay.connectTimeoutSeconds, totalTimeoutSeconds: relay.totalTimeoutSeconds,
            caFile: relay.caFile, kind: .smtp(envelope))
    }

    private static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host.hasPrefix("127.") || host == "::1" || host == "[::1]"
    }
}
