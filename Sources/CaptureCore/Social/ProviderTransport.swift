import CaptureJSON
import Foundation

/// One server-to-server call to a provider (discovery, keys, token exchange, userinfo).
public struct ProviderCall: Sendable, Equatable {
    public enum Method: String, Sendable { case get = "GET", post = "POST" }

    public var method: Method
    public var url: String
    /// A form body (`application/x-www-form-urlencoded`) for POST.
    public var form: [(String, String)]
    /// `Authorization` header value (client_secret_basic, or a bearer token for userinfo).
    public var authorization: String?
    public var allowsPlainHTTP: Bool

    public init(
        method: Method = .get, url: String, form: [(String, String)] = [], authorization: String? = nil,
        allowsPlainHTTP: Bool = false
    ) {
        self.method = method
        self.url = url
        self.form = form
        self.authorization = authorization
        self.allowsPlainHTTP = allowsPlainHTTP
    }

    public static func == (lhs: ProviderCall, rhs: ProviderCall) -> Bool {
        lhs.method == rhs.method && lhs.url == rhs.url && lhs.authorization == rhs.authorization
            && lhs.form.map { [$0.0, $0.1] } == rhs.form.map { [$0.0, $0.1] } && lhs.allowsPlainHTTP == rhs.allowsPlainHTTP
    }
}

public struct ProviderReply: Sendable {
    public var status: Int
    public var body: Data

    public init(status: Int, body: Data) {
        self.status = status
        self.body = body
    }

    /// The body as a JSON object, read with the bounded parser.
    public var json: [String: JSONValue]? {
        guard case .object(let members) = try? JSONParser.parse(body, limits: ProviderReply.limits) else { return nil }
        return members
    }

    static let limits = JSONParser.Limits(
        maxInputBytes: 262_144, maxDepth: 16, maxValues: 10_000, maxStringBytes: 16_384, maxNumberBytes: 64)
}

/// Why a call did not come back with an answer; the reason is for logs and the page's error event.
public struct ProviderUnreachable: Error, Equatable, Sendable {
    public var reason: String
    public init(_ reason: String) { self.reason = reason }
}

/// How provider calls leave the process (libcurl, in CaptureOutbound): timeouts, TLS verification, a size cap
/// and no redirects are the transport's job.
public protocol ProviderTransport: Sendable {
    func send(_ call: ProviderCall) async throws(ProviderUnreachable) -> ProviderReply
}
