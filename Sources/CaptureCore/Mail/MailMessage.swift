import Foundation

/// One message as it goes out: the envelope and a text body, with an optional HTML alternative.
public struct MailMessage: Sendable, Equatable {
    public var from: String
    public var to: String
    public var subject: String
    public var text: String
    public var html: String?
    /// `Message-ID` without angle brackets; also what the outbox knows the message by.
    public var messageID: String

    public init(from: String, to: String, subject: String, text: String, html: String? = nil, messageID: String) {
        self.from = from
        self.to = to
        self.subject = subject
        self.text = text
        self.html = html
        self.messageID = messageID
    }
}

/// Where mail goes: an SMTP relay (Settings `smtp`; the password only from the environment).
public struct SMTPRelay: Sendable, Equatable {
    public enum Security: String, Sendable, Equatable, Codable {
        /// Plain SMTP (a relay on loopback or a private network).
        case none
        /// SMTP, then STARTTLS before anything else is said; refused if the server does not offer it.
        case startTLS = "starttls"
        /// TLS from the first byte (`smtps://`, usually port 465).
        case implicitTLS = "tls"
    }

    public var host: String
    public var port: Int
    public var security: Security
    public var username: String?
    public var password: String?
    /// The envelope and header sender.
    public var from: String
    public var connectTimeoutSeconds: Double
    public var totalTimeoutSeconds: Double
    /// Extra CA bundle to trust (a private relay's certificate); certificate checks are never turned off.
    public var caFile: String?

    public init(
        host: String, port: Int, security: Security = .startTLS, username: String? = nil, password: String? = nil,
        from: String, connectTimeoutSeconds: Double = 10, totalTimeoutSeconds: Double = 30, caFile: String? = nil
    ) {
        self.host = host
        self.port = port
        self.security = security
        self.username = username
        self.password = password
        self.from = from
        self.connectTimeoutSeconds = connectTimeoutSeconds
        self.totalTimeoutSeconds = totalTimeoutSeconds
        self.caFile = caFile
    }
}

/// Why a delivery attempt failed; `isPermanent` failures are not retried.
public struct MailDeliveryError: Error, Sendable, Equatable {
    public var reason: String
    public var isPermanent: Bool

    public init(reason: String, isPermanent: Bool) {
        self.reason = reason
        self.isPermanent = isPermanent
    }
}

/// Hands a message to the outside world (SMTP over libcurl in production). The outbox calls it off the request path.
public protocol MailTransport: Sendable {
    func deliver(_ message: MailMessage) async throws(MailDeliveryError)
}
