import Foundation

/// One libcurl transfer described as plain values, so it can cross from the caller's task to a curl thread.
struct CurlTransfer: Sendable {
    /// What the protocol layer above asks of libcurl beyond the common settings.
    enum Kind: Sendable {
        case smtp(SMTPEnvelope)
        case http(HTTPExchange)
    }

    struct SMTPEnvelope: Sendable {
        /// Bare address; libcurl adds the angle brackets.
        var mailFrom: String
        var recipients: [String]
        /// STARTTLS before anything else is said, failing if the server does not offer it.
        var requireStartTLS: Bool
        var username: String?
        var password: String?
        /// The whole message, CRLF line endings; libcurl dot-stuffs it.
        var message: [UInt8]
    }

    struct HTTPExchange: Sendable {
        var method: OutboundHTTPRequest.Method
        /// Already checked for CR/LF, in libcurl's `Name: value` form.
        var headerLines: [String]
        var body: [UInt8]?
        var maxResponseBytes: Int
        var maxRedirects: Int
    }

    var url: String
    /// CURLOPT_PROTOCOLS_STR: only what this call needs ("smtp", "https", …); redirects get the same list.
    var protocols: String
    var connectTimeoutSeconds: Double
    var totalTimeoutSeconds: Double
    /// CURLOPT_CAINFO: replaces the default bundle, not the CA directory; verification stays on either way.
    var caFile: String?
    var kind: Kind
}

/// What came back from one transfer, as plain values.
struct CurlOutcome: Sendable {
    /// The CURLcode's raw value (CURLE_OK is 0).
    var code: UInt32
    /// CURLINFO_RESPONSE_CODE: the last SMTP reply code or the HTTP status; 0 when the server never answered.
    var responseCode: Int
    /// libcurl's error buffer (or strerror of the code). Never holds a body or a password: libcurl writes only its
    /// own diagnostics there, and the URL we give it carries no credentials.
    var errorText: String
    /// The SMTP server's last 4xx/5xx line (its reply to what failed), cleaned to printable ASCII.
    var lastServerReply: String?
    var headers: [OutboundHTTPHeader] = []
    var body: [UInt8] = []
    /// The response passed the caller's byte cap and the transfer was stopped.
    var responseTooLarge = false
    /// The calling task was cancelled and the transfer stopped (or never started).
    var cancelled = false

    var succeeded: Bool { code == 0 }
}
