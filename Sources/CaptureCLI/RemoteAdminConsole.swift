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

    func tokens(_ query: TokenQuery) async throws -> AdminList<TokenView> {
        try await list(
            "/tokens",
            ["user": query.user, "client": query.client, "kind": query.kind, "state": query.state], page: query.page)
    }

    func token(_ reference: String) async throws -> TokenView { try await send(.get, "/tokens/\(segment(reference))") }

    func revokeToken(_ reference: String) async throws -> RevocationView {
        try await send(.post, "/tokens/\(segment(reference))/revoke")
    }

    func revokeTokens(ofUser reference: String) async throws -> RevocationView {
        try await send(.post, "/users/\(segment(reference))/sign-out")
    }

    func revokeTokens(ofClient id: String) async throws -> RevocationView {
        try await send(.post, "/clients/\(segment(id))/revoke-tokens")
    }

    func introspect(_ token: String) async throws -> IntrospectionView {
        try await send(.post, "/tokens/introspect", body: ["token": .string(token)])
    }

    func purgeExpiredTokens() async throws -> PurgeView { try await send(.post, "/tokens/purge-expired") }

    func users(_ query: UserQuery) async throws -> AdminList<UserView> {
        try await list("/users", ["search": query.search], page: query.page)
    }

    func user(_ reference: String) async throws -> UserView { try await send(.get, "/users/\(segment(reference))") }

    func setDisabled(_ reference: String, _ disabled: Bool) async throws -> UserView {
        try await send(.post, "/users/\(segment(reference))/\(disabled ? "disable" : "enable")")
    }

    func deleteUser(_ reference: String) async throws -> DeletedUserView {
        try await send(.delete, "/users/\(segment(reference))")
    }

    func deactivateUser(_ reference: String) async throws -> UserView {
        try await send(.post, "/users/\(segment(reference))/deactivate")
    }

    func reactivateUser(_ reference: String) async throws -> UserView {
        try await send(.post, "/users/\(segment(reference))/reactivate")
    }

    func exportUser(_ reference: String) async throws -> AccountExport {
        try await send(.get, "/users/\(segment(reference))/export")
    }

    func resetFactors(_ reference: String) async throws -> FactorsResetView {
        try await send(.post, "/users/\(segment(reference))/reset-factors")
    }

    func clients() async throws -> AdminList<ClientView> { try await list("/clients", [:], page: nil) }

    func client(_ id: String) async throws -> ClientView { try await send(.get, "/clients/\(segment(id))") }

    func addClient(_ draft: ClientDraft) async throws -> ClientView {
        var body: [String: JSONValue] = [
            "client_id": .string(draft.id), "confidential": .bool(draft.confidential),
            "redirect_uris": .array(draft.redirectURIs.map(JSONValue.string)),
            "allowed_origins": .array(draft.allowedOrigins.map(JSONValue.string)),
            "response_types": .array(draft.responseTypes.map(JSONValue.string)), "legacy_token_url": .bool(draft.legacyTokenURL),
        ]
        if let name = draft.name { body["name"] = .string(name) }
        for (key, value) in draft.pages.janrainClientSettings { body[key] = .string(value) }
        return try await send(.post, "/clients", body: .object(body))
    }

    func updateClient(_ id: String, _ change: ClientChange) async throws -> ClientView {
        var body: [String: JSONValue] = [:]
        if let name = change.name { body["name"] = .string(name) }
        if let uris = change.redirectURIs { body["redirect_uris"] = .array(uris.map(JSONValue.string)) }
        if let origins = change.allowedOrigins { body["allowed_origins"] = .array(origins.map(JSONValue.string)) }
        if let types = change.responseTypes { body["response_types"] = .array(types.map(JSONValue.string)) }
        if let legacy = change.legacyTokenURL { body["legacy_token_url"] = .bool(legacy) }
        let pages = [
            ("site_name", change.siteName), ("verify_email_url", change.verifyEmailURL),
            ("password_recover_url", change.passwordRecoverURL),
        ]
        for case (let key, let value?) in pages { body[key] = .string(value) }
        return try await send(.patch, "/clients/\(segment(id))", body: .object(body))
    }

    func removeClient(_ id: String) async throws -> RemovedClientView { try await send(.delete, "/clients/\(segment(id))") }

    func rotateClientSecret(_ id: String) async throws -> ClientSecretView {
        try await send(.post, "/clients/\(segment(id))/rotate-secret")
    }

    func audit(_ filter: AuditFilter) async throws -> AdminList<AuditEntryView> {
        try await list("/audit", ["actor": filter.actor, "action": filter.action, "target": filter.target], page: filter.page)
    }

    // MARK: - HTTP

    private func list<Item>(_ path: String, _ query: [String: String?], page: Page?) async throws -> AdminList<Item> {
        var items = query.compactMapValues { $0 }
        if let page {
            items["limit"] = String(page.limit)
            items["offset"] = String(page.offset)
        }
        var components = URLComponents()
        components.queryItems = items.keys.sorted().map { URLQueryItem(name: $0, value: items[$0]) }
        let suffix = items.isEmpty ? "" : "?" + (components.percentEncodedQuery ?? "").replacingOccurrences(of: "+", with: "%2B")
        return try await send(.get, path + suffix)
    }

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
