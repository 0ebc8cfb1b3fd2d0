import CaptureCore
import Foundation
import Logging

/// Delivers mail through an SMTP relay with libcurl: one connection per message, on `CurlClient`'s threads.
/// One attempt per call: retrying is the outbox's job, guided by `MailDeliveryError.isPermanent`.
public struct SMTPMailTransport: MailTransport {
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
        var message = message
        if message.from.isEmpty { message.from = relay.from }
        let mime = try MIMEMessage(message, date: now(), boundary: UUID().uuidString)
        let transfer = try transfer(for: mime)
        let outcome = await client.perform(transfer)
        // The message id is the one thing logged: no address, subject or body (bodies hold one-time codes).
        if outcome.succeeded {
            logger.debug("mail delivered", metadata: ["message_id": "\(message.messageID)"])
            return
        }
        let error = SMTPFailure.error(for: outcome)
        logger.info(
            "mail delivery failed",
            metadata: [
                "message_id": "\(message.messageID)", "reason": "\(error.reason)", "permanent": "\(error.isPermanent)",
            ])
        throw error
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
