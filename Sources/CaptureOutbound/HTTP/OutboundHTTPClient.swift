import CCurl
import Foundation

/// HTTP(S) calls to social providers and webhook endpoints, over the shared libcurl threads.
public struct OutboundHTTPClient: Sendable {
    private let client: CurlClient

    public init(client: CurlClient = .shared) {
        self.client = client
    }

    /// Sends the request and returns the final response whatever its status; throws only when there is none.
    public func send(_ request: OutboundHTTPRequest) async throws(OutboundHTTPError) -> OutboundHTTPResponse {
        let transfer = try Self.transfer(for: request)
        let outcome = await client.perform(transfer)
        if outcome.succeeded {
            return OutboundHTTPResponse(
                status: outcome.responseCode, headers: outcome.headers, body: Data(outcome.body))
        }
        throw Self.error(for: outcome, request: request)
    }

    static func transfer(for request: OutboundHTTPRequest) throws(OutboundHTTPError) -> CurlTransfer {
        let lowercasedURL = request.url.lowercased()
        guard lowercasedURL.hasPrefix("https://") || (request.allowsPlainHTTP && lowercasedURL.hasPrefix("http://"))
        else {
            throw OutboundHTTPError(
                kind: .invalidRequest,
                reason: request.allowsPlainHTTP ? "the URL is not http:// or https://" : "the URL is not https://")
        }
        guard request.url.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw OutboundHTTPError(
                kind: .invalidRequest, reason: "the URL has spaces, control or non-ASCII characters")
        }
        guard request.maxResponseBytes >= 0, request.maxRedirects >= 0,
            request.connectTimeoutSeconds > 0, request.totalTimeoutSeconds > 0
        else { throw OutboundHTTPError(kind: .invalidRequest, reason: "timeouts and limits must be positive") }

        var lines: [String] = []
        for header in request.headers {
            guard isToken(header.name) else {
                throw OutboundHTTPError(kind: .invalidRequest, reason: "header name \"\(header.name)\" is not a token")
            }
            // A CR or LF would end the header and start another of the value's choosing.
            guard !header.value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) else {
                throw OutboundHTTPError(kind: .invalidRequest, reason: "header \(header.name) has a line break")
            }
            // "Name:" would tell libcurl to drop its own header; "Name;" is its way to send an empty one.
            lines.append(header.value.isEmpty ? "\(header.name);" : "\(header.name): \(header.value)")
        }
        let exchange = CurlTransfer.HTTPExchange(
            method: request.method, headerLines: lines, body: request.body.map { [UInt8]($0) },
            maxResponseBytes: request.maxResponseBytes, maxRedirects: request.maxRedirects)
        return CurlTransfer(
            url: request.url, protocols: request.allowsPlainHTTP ? "http,https" : "https",
            connectTimeoutSeconds: request.connectTimeoutSeconds, totalTimeoutSeconds: request.totalTimeoutSeconds,
            caFile: request.caFile, kind: .http(exchange))
    }

    static func error(for outcome: CurlOutcome, request: OutboundHTTPRequest) -> OutboundHTTPError {
        if outcome.cancelled { return OutboundHTTPError(kind: .cancelled, reason: "the calling task was cancelled") }
        if outcome.responseTooLarge {
            return OutboundHTTPError(
                kind: .responseTooLarge, reason: "the response is larger than \(request.maxResponseBytes) bytes")
        }
        let kind: OutboundHTTPError.Kind
        switch CURLcode(outcome.code) {
        case CURLE_OPERATION_TIMEDOUT: kind = .timedOut
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY: kind = .connectionFailed
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE,
            CURLE_SSL_CERTPROBLEM:
            kind = .tlsFailed
        case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL: kind = .invalidRequest
        default: kind = .transferFailed
        }
        return OutboundHTTPError(kind: kind, reason: outcome.errorText)
    }

    /// RFC 9110 token characters.
    private static func isToken(_ name: String) -> Bool {
        !name.isEmpty
            && name.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                    UInt8(ascii: "A")...UInt8(ascii: "Z"):
                    true
                default: "!#$%&'*+-.^_`|~".utf8.contains(byte)
                }
            }
    }
}
