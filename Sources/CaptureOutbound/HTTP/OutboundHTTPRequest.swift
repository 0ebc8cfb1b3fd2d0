import Foundation

/// One header of an outbound request or its response.
public struct OutboundHTTPHeader: Sendable, Equatable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// An HTTP request to a provider or a webhook endpoint, with the limits that bound what it may cost.
public struct OutboundHTTPRequest: Sendable, Equatable {
    public enum Method: String, Sendable, Equatable {
        case get = "GET"
        case head = "HEAD"
        case post = "POST"
        case put = "PUT"
        case patch = "PATCH"
        case delete = "DELETE"
    }

    public var method: Method
    public var url: String
    public var headers: [OutboundHTTPHeader]
    public var body: Data?
    public var connectTimeoutSeconds: Double
    public var totalTimeoutSeconds: Double
    /// Bodies past this are not read: the call fails with `responseTooLarge`.
    public var maxResponseBytes: Int
    /// 0 (the default) follows none: a provider's redirect is an answer to read, not a place to go.
    public var maxRedirects: Int
    /// Plain `http://` is refused unless set (loopback test servers, a sidecar); providers are always `https://`.
    public var allowsPlainHTTP: Bool
    /// A CA bundle (PEM) to verify with in place of the system bundle (libcurl still reads the system's CA
    /// directory, /etc/ssl/certs on Debian); certificate checks are never turned off.
    public var caFile: String?

    public init(
        method: Method = .get, url: String, headers: [OutboundHTTPHeader] = [], body: Data? = nil,
        connectTimeoutSeconds: Double = 5, totalTimeoutSeconds: Double = 15, maxResponseBytes: Int = 1 << 20,
        maxRedirects: Int = 0, allowsPlainHTTP: Bool = false, caFile: String? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.connectTimeoutSeconds = connectTimeoutSeconds
        self.totalTimeoutSeconds = totalTimeoutSeconds
        self.maxResponseBytes = maxResponseBytes
        self.maxRedirects = maxRedirects
        self.allowsPlainHTTP = allowsPlainHTTP
        self.caFile = caFile
    }
}
