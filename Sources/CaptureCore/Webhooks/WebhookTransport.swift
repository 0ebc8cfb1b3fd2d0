import Foundation

/// One POST of a signed event to a listener (CaptureOutbound's libcurl client in the server; tests may use it too).
public protocol WebhookTransport: Sendable {
    func post(_ request: WebhookRequest) async -> WebhookResponse
}

/// What the delivery sends: the listener, Standard Webhooks' headers, the body, and the limits.
public struct WebhookRequest: Sendable, Equatable {
    public var url: String
    public var headers: [(name: String, value: String)]
    public var body: String
    public var connectTimeoutSeconds: Double
    public var totalTimeoutSeconds: Double
    /// http:// allowed (loopback only: `WebhookSettings.problem(withEndpoint:)` checked it when it was stored).
    public var allowsPlainHTTP: Bool

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.url == rhs.url && lhs.body == rhs.body && lhs.headers.map(\.name) == rhs.headers.map(\.name)
            && lhs.headers.map(\.value) == rhs.headers.map(\.value)
    }

    /// The value of a header, by its name in any case.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

/// The listener's answer: its status and `Retry-After`, or why there was none (`error`: a timeout, no connection).
public struct WebhookResponse: Sendable, Equatable {
    public var status: Int?
    public var retryAfter: String?
    public var error: String?

    public init(status: Int?, retryAfter: String? = nil, error: String? = nil) {
        self.status = status
        self.retryAfter = retryAfter
        self.error = error
    }
}
