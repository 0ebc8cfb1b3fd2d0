/// Why an outbound HTTP call got no response. An HTTP error status is not one of these: it is a response.
public struct OutboundHTTPError: Error, Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// The request was refused before anything was sent (bad URL, scheme, header or limit).
        case invalidRequest
        /// No connection: refused, unreachable, name not found.
        case connectionFailed
        /// The connect or total timeout passed.
        case timedOut
        /// TLS could not be set up or the certificate did not verify.
        case tlsFailed
        /// The body passed `maxResponseBytes`.
        case responseTooLarge
        /// The calling task was cancelled.
        case cancelled
        /// Anything else libcurl reported (a broken reply, a reset connection, too many redirects).
        case transferFailed
    }

    public var kind: Kind
    /// libcurl's diagnostic; never a request or response body.
    public var reason: String

    public init(kind: Kind, reason: String) {
        self.kind = kind
        self.reason = reason
    }
}
