import CaptureCore
import Foundation

/// Webhook deliveries over libcurl: the event's signed POST with its timeouts, at most 64 KiB of answer read, no
/// redirect followed (a listener's redirect is an answer, never a place to send the event: it cannot lead a
/// delivery into a private range).
public struct CurlWebhookTransport: WebhookTransport {
    let client: OutboundHTTPClient

    public init(client: OutboundHTTPClient = OutboundHTTPClient()) {
        self.client = client
    }

    public func post(_ request: WebhookRequest) async -> WebhookResponse {
        let outbound = OutboundHTTPRequest(
            method: .post, url: request.url,
            headers: request.headers.map { OutboundHTTPHeader(name: $0.name, value: $0.value) },
            body: Data(request.body.utf8), connectTimeoutSeconds: request.connectTimeoutSeconds,
            totalTimeoutSeconds: request.totalTimeoutSeconds, maxResponseBytes: 65_536, maxRedirects: 0,
            allowsPlainHTTP: request.allowsPlainHTTP)
        do {
            let response = try await client.send(outbound)
            return WebhookResponse(status: response.status, retryAfter: response.header("Retry-After"))
        } catch {
            return WebhookResponse(status: nil, error: "\(error.kind): \(error.reason)")
        }
    }
}
