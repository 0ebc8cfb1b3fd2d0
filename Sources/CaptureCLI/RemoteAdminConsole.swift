import CaptureCore
import CaptureJSON
import CaptureOutbound
import Foundation

/// A refusal the admin API answered (a problem document): its `detail` is printed, and a usage error (a bad or
/// missing argument) exits 2 like the same mistake on the database file.
struct RemoteRefusal: Error {
    let detail: String
    let isUsage: Bool
}

/// The operator's verbs over the admin API (`capturectl --server URL`, key from `CAPTURE_ADMIN_KEY`), through the
/// service's one outbound client (libcurl). Plain http is accepted only on loopback: the key must not cross a
/// network in the clear.
struct RemoteAdminConsole: AdminConsole {
    let base: String
    let key: String
    let http = OutboundHTTPClient()

    init(server: String, key: String?) throws {
        guard let key, !key.isEmpty else {
            throw CaptureError.missingArgument("admin key: set CAPTURE_ADMIN_KEY (make one with 'capturectl admin-key add')")
        }
        guard let url = URLComponents(string: server), let scheme = url.scheme?.lowercased(), let host = url.host,
            scheme == "https" || (scheme == "http" && ["127.0.0.1", "::1", "[::1]", "localhost"].contains(host.lowercased()))
        else {
            throw CaptureError.invalidArgument("server", "'\(server)' must be an https:// URL (http:// only on loopback)")
        }
        base = server.hasSuffix("/") ? String(server.dropLast()) : server
        self.key = key
    }

    func perform<Input, Output>(_ operation: AdminOperation<Input, Output>, _ input: Input) async throws -> Output {
        let call = operation.call(input)
        var path = operation.path
        for name in operation.references {
            path = path.replacingOccurrences(of: ":" + name, with: segment(call.references[name] ?? ""))
        }
        if !call.query.isEmpty {
            var components = URLComponents()
            components.queryItems = call.query.keys.sorted().map { URLQueryItem(name: $0, value: call.query[$0]) }
            path += "?" + (components.percentEncodedQuery ?? "").replacingOccurrences(of: "+", with: "%2B")
        }
        let method: OutboundHTTPRequest.Method
        switch operation.method {
        case .get: method = .get
        case .post: method = .post
        case .patch: method = .patch
        case .delete: method = .delete
        }
        return try await send(method, path, body: operation.fields.isEmpty || operation.method == .get ? nil : .object(call.body))
    }

    // MARK: - HTTP

    private func segment(_ value: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~@")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }

    private func send<View: Decodable>(
        _ method: OutboundHTTPRequest.Method, _ path: String, body: JSONValue? = nil
    ) async throws
        -> View
    {
        var headers = [
            OutboundHTTPHeader(name: "Authorization", value: "Bearer \(key)"),
            OutboundHTTPHeader(name: "Accept", value: "application/json"),
        ]
        if body != nil { headers.append(OutboundHTTPHeader(name: "Content-Type", value: "application/json")) }
        let response: OutboundHTTPResponse
        do {
            response = try await http.send(
                OutboundHTTPRequest(
                    method: method, url: base + "/admin/v1" + path, headers: headers, body: body?.encoded(),
                    totalTimeoutSeconds: 60, maxResponseBytes: 64 << 20, allowsPlainHTTP: true))
        } catch {
            throw RemoteRefusal(detail: "cannot reach \(base): \(error)", isUsage: false)
        }
        let document = try? JSONParser.parse(
            Array(response.body),
            limits: .init(
                maxInputBytes: 64 << 20, maxDepth: 32, maxValues: 10_000_000, maxStringBytes: 1 << 20, maxNumberBytes: 64))
        guard (200..<300).contains(response.status) else {
            // Problem details name it `detail`; a reply from outside the admin API (a proxy, a refused method) may not.
            let detail =
                [document.map { Output.member($0, "detail") }, document.map { Output.member($0, "error_description") }]
                .compactMap { value -> String? in
                    if case .string(let text)? = value { return text }
                    return nil
                }.first ?? "HTTP \(response.status) from \(base)"
            let error = document.map { Output.text(Output.member($0, "error")) } ?? ""
            throw RemoteRefusal(
                detail: response.status == 401 ? "the server refused the admin key (CAPTURE_ADMIN_KEY): \(detail)" : detail,
                isUsage: ["invalid_argument", "missing_argument"].contains(error) && response.status == 400)
        }
        guard document != nil else {
            throw RemoteRefusal(detail: "\(base) did not answer JSON (HTTP \(response.status))", isUsage: false)
        }
        do {
            return try AdminViews.decode(View.self, from: response.body)
        } catch {
            throw RemoteRefusal(detail: "\(base) sent a reply this capturectl cannot read: \(error)", isUsage: false)
        }
    }
}
