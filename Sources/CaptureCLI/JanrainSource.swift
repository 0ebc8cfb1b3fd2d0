import CaptureCore
import CaptureJSON
import CaptureOutbound
import Foundation

/// The old app, as its owner client reads it: Janrain's server API (`entity.find`, `entity.count`, `entityType`)
/// over the one outbound client (libcurl), form-encoded POSTs with HTTP Basic (Janrain's recommendation). The secret
/// goes only into the Authorization header: never into a URL, a log line or an error message.
struct JanrainSource {
    /// Why the pull stops: the source refused (its `stat: error`), or could not be reached after the retries.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let base: String
    let clientID: String
    let secret: String
    let http = OutboundHTTPClient()
    /// Seconds one call may take (Janrain's own `timeout` on a find is up to 60).
    var timeout: Double = 90
    /// Tries of one call on a timeout, a lost connection or a 5xx, waiting 1, 2, 4 … seconds between them.
    var tries = 5

    init(base: String, clientID: String, secret: String) throws(Failure) {
        var trimmed = base
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        guard let url = URLComponents(string: trimmed), let host = url.host, !host.isEmpty,
            url.scheme == "https" || (url.scheme == "http" && Self.isLoopback(host))
        else {
            throw Failure(description: "--from must be https://<app>.janraincapture.com (plain http only on loopback)")
        }
        self.base = trimmed
        self.clientID = clientID
        self.secret = secret
    }

    static func isLoopback(_ host: String) -> Bool {
        ["localhost", "127.0.0.1", "::1", "[::1]"].contains(host.lowercased())
    }

    /// One page of records in `id` order: those with `id > after` (and `lastUpdated > since`), at most `limit`.
    func records(after: Int64, since: String?, limit: Int) async throws(Failure) -> [JSONValue] {
        var filter = "id > \(after)"
        if let since { filter += " and lastUpdated > '\(Self.quoted(since))'" }
        return try await find(filter: filter, limit: limit)
    }

    /// The records with these uuids (failures of an earlier run, tried again).
    func records(uuids: [String]) async throws(Failure) -> [JSONValue] {
        let filter = uuids.map { "uuid = '\(Self.quoted($0))'" }.joined(separator: " or ")
        return try await find(filter: filter, limit: uuids.count)
    }

    /// How many records a pull from `after` will read (for the time left); nil when the source does not say.
    func count(after: Int64, since: String?) async -> Int? {
        var filter = "id > \(after)"
        if let since { filter += " and lastUpdated > '\(Self.quoted(since))'" }
        guard let reply = try? await call("entity.count", ["type_name": "user", "filter": filter]),
            case .int(let count)? = reply["total_count"]
        else { return nil }
        return Int(count)
    }

    /// `entityType`'s attribute definitions (`schema.attr_defs`).
    func attributeDefinitions() async throws(Failure) -> [JSONValue] {
        let reply = try await call("entityType", ["type_name": "user"])
        guard case .object(let schema)? = reply["schema"], case .array(let definitions)? = schema["attr_defs"] else {
            throw Failure(description: "\(base)/entityType answered no schema.attr_defs")
        }
        return definitions
    }

    private func find(filter: String, limit: Int) async throws(Failure) -> [JSONValue] {
        var parameters = ["type_name": "user", "sort_on": "[\"id\"]", "filter": filter, "max_results": "\(limit)"]
        if let attributes { parameters["attributes"] = attributes }
        let reply = try await call("entity.find", parameters)
        guard case .array(let results)? = reply["results"] else {
            throw Failure(description: "\(base)/entity.find answered no results list")
        }
        return results
    }

    /// The attributes to ask for (JSON list): every top-level attribute of the source's schema and `password`, which
    /// Janrain shows only when named; nil asks for whole records.
    var attributes: String?

    /// One call: its reply's members when `stat` is `ok`. Retries what may pass (no answer, a timeout, a 5xx); a
    /// `stat: error` reply is the source's answer and stops the pull with its code and description.
    func call(_ name: String, _ parameters: [String: String]) async throws(Failure) -> [String: JSONValue] {
        let credentials = Data("\(clientID):\(secret)".utf8).base64EncodedString()
        let request = OutboundHTTPRequest(
            method: .post, url: "\(base)/\(name)",
            headers: [
                OutboundHTTPHeader(name: "Authorization", value: "Basic \(credentials)"),
                OutboundHTTPHeader(name: "Content-Type", value: "application/x-www-form-urlencoded"),
                OutboundHTTPHeader(name: "Accept", value: "application/json"),
            ],
            body: Data(FormBody.encoded(parameters.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }).utf8),
            connectTimeoutSeconds: 10, totalTimeoutSeconds: timeout,
            maxResponseBytes: 256 << 20, allowsPlainHTTP: true)
        var wait: UInt64 = 1
        var lastProblem = ""
        for attempt in 1...max(1, tries) {
            if attempt > 1 {
                try? await Task.sleep(nanoseconds: wait * 1_000_000_000)
                wait = min(wait * 2, 30)
            }
            let response: OutboundHTTPResponse
            do {
                response = try await http.send(request)
            } catch {
                lastProblem = "no answer (\(error.kind)): \(error.reason)"
                if error.kind == .invalidRequest || error.kind == .tlsFailed { break }
                continue
            }
            if response.status >= 500 {
                lastProblem = "HTTP \(response.status)"
                continue
            }
            return try reply(response, call: name)
        }
        throw Failure(description: "\(base)/\(name): \(lastProblem) after \(tries) tries")
    }

    private func reply(_ response: OutboundHTTPResponse, call name: String) throws(Failure) -> [String: JSONValue] {
        let limits = JSONParser.Limits(
            maxInputBytes: 256 << 20, maxDepth: 64, maxValues: 50_000_000, maxStringBytes: 1 << 20, maxNumberBytes: 64)
        guard case .object(let members)? = try? JSONParser.parse(Array(response.body), limits: limits) else {
            throw Failure(description: "\(base)/\(name) did not answer JSON (HTTP \(response.status))")
        }
        guard members["stat"] == .string("ok") else {
            let code = members["code"].map { String(decoding: $0.encodedBytes(), as: UTF8.self) } ?? "?"
            let error = members["error"]?.stringValue ?? "error"
            let description = members["error_description"]?.stringValue ?? "no description"
            var text = "\(base)/\(name) refused: \(code) \(error): \(description)"
            if (400..<500).contains(Int(code) ?? 0) || response.status == 401 || response.status == 403 {
                text += " (check --client-id and the secret, and that the client has the owner feature)"
            }
            throw Failure(description: text)
        }
        return members
    }

    /// A filter's string literal: a quote is dropped (uuids and dates never hold one, and none may end the literal).
    private static func quoted(_ text: String) -> String {
        text.replacingOccurrences(of: "'", with: "")
    }
}
