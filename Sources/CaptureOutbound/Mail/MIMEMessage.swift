import CaptureCore
import Foundation

/// Turns a `MailMessage` into the RFC 5322 bytes that go over SMTP: UTF-8, quoted-printable bodies, CRLF endings,
/// multipart/alternative when there is HTML. Refuses header values with line breaks rather than cleaning them:
/// a subject with a CR/LF in it is a bug or an attack, and either way should not go out.
struct MIMEMessage {
    var from: MailAddress
    var to: MailAddress
    var bytes: [UInt8]

    /// - Parameters:
    ///   - boundary: the multipart boundary's random part; "=_" before it never occurs in quoted-printable text, so
    ///     no body can contain the boundary line.
    init(_ message: MailMessage, date: Date, boundary: String) throws(MailDeliveryError) {
        for (name, value) in [
            ("From", message.from), ("To", message.to), ("Subject", message.subject),
            ("Message-ID", message.messageID),
        ]
        where value.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) {
            throw MailDeliveryError(
                reason: "the \(name) header has a line break; the message was not sent", isPermanent: true)
        }
        guard let from = MailAddress(message.from) else {
            throw MailDeliveryError(reason: "the sender is not a plain address", isPermanent: true)
        }
        // The recipient is exactly the stored address (EmailAddress): never a display name whose brackets would send
        // the message to another mailbox than the one the code is bound to.
        guard EmailAddress.isPlain(message.to), let to = MailAddress(message.to) else {
            throw MailDeliveryError(reason: "the recipient is not a plain address", isPermanent: true)
        }
        let messageID = message.messageID.trimmingCharacters(in: CharacterSet(charactersIn: "<> "))
        guard !messageID.isEmpty,
            messageID.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "<") && $0 != UInt8(ascii: ">") })
        else { throw MailDeliveryError(reason: "the Message-ID is not printable ASCII", isPermanent: true) }
        self.from = from
        self.to = to

        var headers = [
            "Date: \(Self.rfc5322Date(date))",
            "From: \(from.headerValue)",
            "To: \(to.headerValue)",
            "Subject: \(EncodedWord.unstructured(message.subject))",
            // A Message-ID needs a right-hand side; the outbox's bare id gets the sender's domain.
            "Message-ID: <\(messageID.contains("@") ? messageID : "\(messageID)@\(from.domain)")>",
            "MIME-Version: 1.0",
        ]
        var body: String
        if let html = message.html {
            let separator = "=_\(boundary)"
            headers.append("Content-Type: multipart/alternative; boundary=\"\(separator)\"")
            body = "This is a multipart message in MIME format.\r\n"
            for (type, content) in [("text/plain", message.text), ("text/html", html)] {
                body += "\r\n--\(separator)\r\n" + Self.partHeaders(type).joined(separator: "\r\n") + "\r\n\r\n"
                body += QuotedPrintable.encode(Self.crlf(content))
            }
            body += "\r\n--\(separator)--\r\n"
        } else {
            headers += Self.partHeaders("text/plain")
            body = QuotedPrintable.encode(Self.crlf(message.text)) + "\r\n"
        }
        bytes = Array((headers.joined(separator: "\r\n") + "\r\n\r\n" + body).utf8)
    }

    private static func partHeaders(_ type: String) -> [String] {
        ["Content-Type: \(type); charset=UTF-8", "Content-Transfer-Encoding: quoted-printable"]
    }

    /// Every line break as CRLF, whatever the template used.
    private static func crlf(_ text: String) -> String {
        text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
            .replacingOccurrences(of: "\n", with: "\r\n")
    }

    /// RFC 5322 §3.3 in UTC, with English names whatever the machine's locale.
    static func rfc5322Date(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss '+0000'"
        return formatter.string(from: date)
    }
}
