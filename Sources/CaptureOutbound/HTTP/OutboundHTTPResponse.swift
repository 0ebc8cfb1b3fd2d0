import Foundation

/// The final response (after any redirects the request allowed): status, headers in order, and the body.
public struct OutboundHTTPResponse: Sendable, Equatable {
    public var status: Int
    public var headers: [OutboundHTTPHeader]
    public var body: Data

    public init(status: Int, headers: [OutboundHTTPHeader], body: Data) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first header of that name, compared case-insensitively as HTTP names are.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}
