import CaptureCore
import Foundation

/// Social providers' server-to-server calls over libcurl: JSON expected, 5 s to connect, 10 s in all, at most
/// 256 KiB back, no redirects followed (a provider's redirect is not where a code or a token should go).
public struct CurlProviderTransport: ProviderTransport {
    let client: OutboundHTTPClient
    let connectTimeoutSeconds: Double
    let totalTimeoutSeconds: Double

    public init(
        client: OutboundHTTPClient = OutboundHTTPClient(), connectTimeoutSeconds: Double = 5, totalTimeoutSeconds: Double = 10
    ) {
        self.client = client
        self.connectTimeoutSeconds = connectTimeoutSeconds
        self.totalTimeoutSeconds = totalTimeoutSeconds
    }

    public func send(_ call: ProviderCall) async throws(ProviderUnreachable) -> ProviderReply {
        var headers = [OutboundHTTPHeader(name: "Accept", value: "application/json")]
        if let authorization = call.authorization {
            headers.append(OutboundHTTPHeader(name: "Authorization", value: authorization))
        }
        var body: Data?
        if call.method == .post {
            headers.append(OutboundHTTPHeader(name: "Content-Type", value: "application/x-www-form-urlencoded"))
            body = Data(FormBody.encoded(call.form).utf8)
        }
        let request = OutboundHTTPRequest(
            method: call.method == .post ? .post : .get, url: call.url, headers: headers, body: body,
            connectTimeoutSeconds: connectTimeoutSeconds, totalTimeoutSeconds: totalTimeoutSeconds,
            maxResponseBytes: 262_144, maxRedirects: 0, allowsPlainHTTP: call.allowsPlainHTTP)
        do {
            let response = try await client.send(request)
            return ProviderReply(status: response.status, body: response.body)
        } catch {
            throw ProviderUnreachable("\(error.kind): \(error.reason)")
        }
    }

}
