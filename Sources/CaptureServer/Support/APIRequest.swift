import CaptureCore
import Hummingbird
import NIOCore
import NIOHTTP1

/// Reads an API request's parameters: form body only, size-limited, no secrets in the URL.
enum APIRequest {
    /// jump.ios redeems a social sign-in by POSTing `token=…` to Engage's "token URL", which it builds as
    /// `/oauth/auth_native?<its other parameters>` (`JRCaptureData captureTokenUrlWithMergeToken:delegate:`). Those
    /// names, and no others, may come in that endpoint's URL; the one-time `token` itself must be in the body.
    static let authNativeQueryParameters: Set<String> = [
        "client_id", "locale", "response_type", "redirect_uri", "thin_registration", "refresh_secret", "flow",
        "flow_name", "flow_version", "bp_channel", "merge_token", "registration_form",
    ]

    /// The form body's parameters, plus those of the query string that `allowedInQuery` names (a name may not come
    /// twice). Any other query parameter refuses the request.
    static func parameters(_ request: Request, limit: Int, allowedInQuery: Set<String> = []) async throws -> [String: String] {
        // Tokens and passwords must never travel in a URL, where logs and Referer headers keep them.
        let query = request.uri.query ?? ""
        var fromQuery: [String: String] = [:]
        if !query.isEmpty {
            guard !allowedInQuery.isEmpty else {
                throw CaptureError.malformedRequest("query", "send parameters in the request body, not the URL")
            }
            fromQuery = try FormParser.parse(Array(query.utf8))
            if let refused = fromQuery.keys.sorted().first(where: { !allowedInQuery.contains($0) }) {
                throw CaptureError.malformedRequest("query", "send '\(refused)' in the request body, not the URL")
            }
        }
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: limit)
        } catch is NIOTooManyBytesError {
            throw CaptureError.requestTooLarge(limit: limit)
        } catch let error as HTTPParserError {
            // NIO's decoder refused the body (a bad chunk size, a chunk cut short by the connection closing):
            // the client's fault, so a 400 naming the body. `RequestGuardHandler` closes the connection after it.
            throw CaptureError.malformedRequest("body", "the body is not valid HTTP/1.1 framing (\(error))")
        }
        // A declared content type must be a form even when the body is empty; an undeclared one only when empty.
        let contentType = request.headers.value(.contentType)
        guard contentType.map(isForm) ?? (buffer.readableBytes == 0) else {
            throw CaptureError.unsupportedContentType(contentType ?? "(none)")
        }
        let fromBody = try FormParser.parse(buffer.readableBytesView)
        if let twice = fromQuery.keys.sorted().first(where: { fromBody[$0] != nil }) {
            throw CaptureError.malformedRequest(twice, "is both in the URL and in the body")
        }
        let parameters = fromQuery.isEmpty ? fromBody : fromBody.merging(fromQuery) { body, _ in body }
        ChangeOrigin.note(client: parameters["client_id"])
        return parameters
    }

    /// Whether a `Content-Type` value names a form: its media type (before any `;`, without the spaces and tabs
    /// around it) is `application/x-www-form-urlencoded` in any case. On bytes: Foundation's lower-casing bridged
    /// through `NSString` on every API request.
    static func isForm(_ contentType: String) -> Bool {
        var mediaType = contentType.utf8[...]
        if let semicolon = mediaType.firstIndex(of: UInt8(ascii: ";")) { mediaType = mediaType[..<semicolon] }
        return mediaType.trimmingOptionalWhitespace.elementsEqual(formMediaType) { byte, expected in
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? (byte | 0x20) == expected : byte == expected
        }
    }

    private static let formMediaType = "application/x-www-form-urlencoded".utf8

    /// `Authorization: Bearer <token>` (or Janrain's `OAuth <token>`), else the form's `access_token`.
    static func accessToken(_ request: Request, parameters: [String: String]) -> String? {
        if let header = request.headers.value(.authorization) {
            for scheme in ["Bearer ", "OAuth "] where header.hasPrefix(scheme) {
                return String(header.dropFirst(scheme.count)).trimmingCharacters(in: .whitespaces)
            }
        }
        return parameters["access_token"]
    }

    /// The `Origin` header when a browser sent the request from a page on another origin than the one it
    /// addressed (OWASP's standard-header CSRF check: Origin against the request's own Host); nil otherwise.
    static func crossOrigin(_ request: Request) -> String? {
        guard let origin = request.headers.value(.origin) else { return nil }
        // HTTP/1's Host header is the request's authority.
        guard let caller = URLOrigin(origin), let authority = request.head.authority else { return origin }
        return caller.authority == authority.lowercased() ? nil : origin
    }

    /// A form submission as the use cases take it: its parameters, the client's address (for the sign-in limits)
    /// and, from a browser page on another origin, that origin (for the cross-origin check).
    static func flowRequest(
        _ parameters: [String: String], _ request: Request, context: CaptureRequestContext, proxies: TrustedProxies
    ) -> FlowRequest {
        var flowRequest = FlowRequest(
            parameters: parameters, remoteAddress: origin(request, context: context, proxies: proxies).address,
            crossOrigin: crossOrigin(request))
        flowRequest.acceptLanguage = request.headers.value(.acceptLanguage)
        flowRequest.userAgent = request.headers.value(.userAgent)
        // Errors about this form are described in its language too.
        context.language?.take(locale: flowRequest.locale)
        return flowRequest
    }

    /// The client's address and scheme: the socket peer, or what the trusted proxies in front of it forwarded.
    static func origin(_ request: Request, context: CaptureRequestContext, proxies: TrustedProxies) -> TrustedProxies.Origin {
        proxies.origin(
            peer: context.remoteAddress?.ipAddress, forwarded: request.headers.value(.forwarded),
            xForwardedFor: request.headers.value(.xForwardedFor), xForwardedProto: request.headers.value(.xForwardedProto))
    }
}
