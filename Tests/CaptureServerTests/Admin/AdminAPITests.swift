import CaptureCore
import CaptureServer
import CaptureTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import Testing

/// The admin API (`/admin/v1/…`) through the real router: keys, paging, not found, the documents it sends, and
/// the audit rows its changes write.
@Suite struct AdminAPITests {
    /// A service with an admin key; `admin` sends requests with it.
    static func withAdmin(_ body: @escaping @Sendable (AdminClient, API, TestWorld) async throws -> Void) async throws {
        try await withAPI { api, world in
            let (key, presented) = try await world.service.admin.createAdminKey(name: "tests", by: .service)
            try await body(AdminClient(api: api, key: presented, id: key.id), api, world)
        }
    }

    struct AdminClient {
        let api: API
        let key: String
        let id: String

        var headers: HTTPFields { [.authorization: "Bearer \(key)"] }

        // A reply the OpenAPI document does not describe is reported at the test's line (`sourceLocation`).
        func get(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> Reply {
            try await api.get("/admin/v1" + path, headers: headers, sourceLocation: sourceLocation)
        }

        func send(
            _ method: HTTPRequest.Method, _ path: String, json: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
        ) async throws -> Reply {
            var headers = self.headers
            if json != nil { headers[.contentType] = "application/json" }
            return try await api.send(
                "/admin/v1" + path, method: method, headers: headers, body: json.map { ByteBuffer(string: $0) },
                sourceLocation: sourceLocation)
        }

        func items(_ reply: Reply) -> [[String: Any]] { reply["items"] as? [[String: Any]] ?? [] }
    }

    static func expectProblem(_ reply: Reply, _ status: HTTPResponse.Status, error: String? = nil, _ note: String = "") {
        #expect(reply.status == status, "\(note) \(reply.text)")
        #expect(reply.headers[.contentType] == "application/problem+json", "\(note)")
        #expect(
            reply["status"] as? Int == Int(status.code) && reply["title"] as? String != nil && reply["detail"] as? String != nil)
        if let error { #expect(reply["error"] as? String == error, "\(note) \(reply.text)") }
    }

    @Test func everyAdminRouteRefusesWithoutAValidKey() async throws {
        try await Self.withAdmin { admin, api, world in
            let routes: [(HTTPRequest.Method, String)] = [
                (.get, "/tokens"), (.get, "/tokens/1"), (.post, "/tokens/1/revoke"), (.post, "/tokens/introspect"),
                (.post, "/tokens/purge-expired"), (.get, "/users"), (.get, "/users/a@example.com"), (.delete, "/users/x"),
                (.post, "/users/x/disable"), (.post, "/users/x/enable"), (.post, "/users/x/sign-out"), (.get, "/clients"),
                (.post, "/clients"), (.get, "/clients/x"), (.patch, "/clients/x"), (.delete, "/clients/x"),
                (.post, "/clients/x/rotate-secret"), (.post, "/clients/x/revoke-tokens"), (.get, "/audit"),
            ]
            try await world.service.admin.revokeAdminKey(
                try #require(try await world.service.admin.createAdminKey(name: "old", by: .service).key.id), by: .service)
            let revoked = try #require(try await world.service.admin.listAdminKeys().first { $0.isRevoked })
            let wrongSecret = "cbk_\(admin.id)_" + String(repeating: "A", count: 43)
            for (method, path) in routes {
                for header in [
                    nil, "Bearer", "Bearer nonsense", "Bearer \(wrongSecret)", "Bearer cbk_\(revoked.id)_x", "Basic \(admin.key)",
                ] {
                    let reply = try await api.send(
                        "/admin/v1" + path, method: method, headers: header.map { [.authorization: $0] } ?? [:])
                    #expect(reply.status == .unauthorized, "\(method) \(path) with \(header ?? "no header")")
                    #expect(reply.headers[.wwwAuthenticate]?.hasPrefix("Bearer") == true)
                    #expect(reply.headers[.xContentTypeOptions] == "nosniff")
                }
            }
            // Nothing was changed by the refused requests.
            #expect(try await world.service.audit.auditLog(AuditFilter(actor: "admin-key:\(admin.id)")).isEmpty)
        }
    }

    @Test func tokensAreListedByFilterAndPageAndNeverShown() async throws {
        try await Self.withAdmin { admin, _, world in
            let a = try await world.register("a@example.com").grant!
            try await world.register("b@example.com")
            let all = try await admin.get("/tokens")
            #expect(all.status == .ok && admin.items(all).count == 4 && all["next_offset"] is NSNull)
            #expect(!all.text.contains(a.accessToken) && !all.text.contains(a.refreshToken))
            for record in try await world.service.admin.listTokens() { #expect(!all.text.contains(record.hash)) }

            let first = try await admin.get("/tokens?limit=3")
            #expect(admin.items(first).count == 3 && first["next_offset"] as? Int == 3)
            let rest = try await admin.get("/tokens?limit=3&offset=3")
            #expect(admin.items(rest).count == 1 && rest["next_offset"] is NSNull)
            #expect(Set((admin.items(first) + admin.items(rest)).compactMap { $0["id"] as? Int }).count == 4)

            let mine = try await admin.get("/tokens?user=a%40example.com&kind=refresh&state=active")
            #expect(admin.items(mine).count == 1 && admin.items(mine).first?["email"] as? String == "a@example.com")
            let byClient = try await admin.get("/tokens?client=demo-mobile-app")
            #expect(admin.items(byClient).count == 4)

            Self.expectProblem(try await admin.get("/tokens?state=sleeping"), .badRequest, error: "invalid_argument")
            Self.expectProblem(try await admin.get("/tokens?limit=0"), .badRequest, error: "invalid_argument")
            Self.expectProblem(try await admin.get("/tokens?access_token=x"), .badRequest, error: "invalid_argument")
            Self.expectProblem(try await admin.get("/tokens?user=nobody%40example.com"), .notFound, error: "record_not_found")

            let access = try #require(try await world.service.admin.listTokens(user: "a@example.com", kind: .access).first)
            let byID = try await admin.get("/tokens/\(try #require(access.id))")
            #expect(byID["fingerprint"] as? String == access.fingerprint && byID["state"] as? String == "active")
            let byFingerprint = try await admin.get("/tokens/\(access.fingerprint)")
            #expect(byFingerprint["id"] as? Int == Int(access.id!))
            Self.expectProblem(try await admin.get("/tokens/999999"), .notFound)

            let introspected = try await admin.send(.post, "/tokens/introspect", json: #"{"token":"\#(a.accessToken)"}"#)
            #expect(introspected["active"] as? Bool == true && introspected["username"] as? String == "a@example.com")
            Self.expectProblem(try await admin.send(.post, "/tokens/introspect", json: "[1]"), .badRequest)
            Self.expectProblem(try await admin.send(.post, "/tokens/introspect"), .unsupportedMediaType)

            let revoked = try await admin.send(.post, "/tokens/\(access.fingerprint)/revoke")
            #expect(revoked.status == .ok && revoked["revoked"] as? Int == 1)
            await #expect(throws: CaptureError.invalidAccessToken) {
                try await world.service.profile.entity(accessToken: a.accessToken)
            }
            Self.expectProblem(
                try await admin.send(.post, "/tokens/\(access.fingerprint)/revoke"), .forbidden, error: "access_denied")

            let rows = try await world.service.audit.auditLog(AuditFilter(action: "token.revoke"))
            #expect(rows.map(\.outcome) == ["access_denied", "success"])
            #expect(rows.allSatisfy { $0.actor == "admin-key:\(admin.id)" && $0.target == access.fingerprint })
        }
    }

    @Test func usersAreSearchedPagedShownDisabledSignedOutAndDeleted() async throws {
        try await Self.withAdmin { admin, _, world in
            let ada = try await world.register("ada@example.com")
            try await world.register("bob@example.com")
            try await world.register("ada_lovelace@example.com")

            let all = try await admin.get("/users?limit=2")
            #expect(admin.items(all).count == 2 && all["next_offset"] as? Int == 2)
            let found = try await admin.get("/users?search=ADA")
            #expect(found.status == .ok, "\(found.text)")
            #expect(
                Set(admin.items(found).compactMap { $0["email"] as? String }) == ["ada@example.com", "ada_lovelace@example.com"])
            // LIKE's wildcards in a search are plain characters.
            try await world.service.store.users.update(
                {
                    var renamed = ada.user; renamed.profile["displayName"] = "Countess"; return renamed
                }())
            #expect(
                admin.items(try await admin.get("/users?search=countess")).compactMap { $0["email"] as? String } == [
                    "ada@example.com"
                ])
            let underscore = try await admin.get("/users?search=a_l")
            #expect(admin.items(underscore).compactMap { $0["email"] as? String } == ["ada_lovelace@example.com"])

            let shown = try await admin.get("/users/ada%40example.com")
            #expect(shown["id"] as? String == ada.user.id && shown["linked_accounts"] as? [Any] != nil)
            #expect(shown["has_password"] as? Bool == true && !shown.text.contains(ada.user.passwordHash!))
            Self.expectProblem(try await admin.get("/users/nobody%40example.com"), .notFound, error: "record_not_found")

            let disabled = try await admin.send(.post, "/users/\(ada.user.id)/disable")
            #expect(disabled["state"] as? String == "disabled")
            await #expect(throws: CaptureError.self) {
                try await world.service.profile.entity(accessToken: ada.grant!.accessToken)
            }
            #expect(try await admin.send(.post, "/users/\(ada.user.id)/enable")["state"] as? String == "active")

            let bob = try await world.service.signIn.signIn(
                FlowRequest(parameters: TestWorld.signIn(email: "bob@example.com", password: "correct horse battery")))
            let signedOut = try await admin.send(.post, "/users/bob%40example.com/sign-out")
            #expect(signedOut["revoked"] as? Int == 4)
            await #expect(throws: CaptureError.invalidAccessToken) {
                try await world.service.profile.entity(accessToken: bob.grant!.accessToken)
            }

            let deleted = try await admin.send(.delete, "/users/bob%40example.com")
            #expect(deleted["email"] as? String == "bob@example.com")
            Self.expectProblem(try await admin.send(.delete, "/users/bob%40example.com"), .notFound)

            let actions = try await world.service.audit.auditLog(AuditFilter(actor: "admin-key:\(admin.id)")).map(\.action)
            #expect(actions == ["user.delete", "user.delete", "user.sign_out", "user.enable", "user.disable"])
        }
    }

    @Test func clientsAreAddedChangedRotatedAndRemoved() async throws {
        try await Self.withAdmin { admin, _, world in
            let added = try await admin.send(
                .post, "/clients",
                json:
                    #"{"client_id":"backend-1","name":"Backend","confidential":true,"redirect_uris":["https://app.example/cb"]}"#)
            #expect(added.status == .created)
            let secret = try #require(added["client_secret"] as? String)
            let shown = try await admin.get("/clients/backend-1")
            #expect(shown["type"] as? String == "confidential" && !shown.text.contains(secret) && shown["client_secret"] == nil)
            #expect(admin.items(try await admin.get("/clients")).contains { $0["client_id"] as? String == "backend-1" })

            Self.expectProblem(
                try await admin.send(.post, "/clients", json: #"{"client_id":"backend-1"}"#), .forbidden, error: "access_denied")
            Self.expectProblem(try await admin.send(.post, "/clients", json: #"{"client_id":"x y"}"#), .badRequest)
            Self.expectProblem(
                try await admin.send(.post, "/clients", json: #"{"client_id":"ok-id","secret":"mine"}"#), .badRequest)
            Self.expectProblem(
                try await admin.send(.post, "/clients", json: #"{"client_id":"ok-id","confidential":"yes"}"#), .badRequest)

            let changed = try await admin.send(
                .patch, "/clients/backend-1", json: #"{"name":"Renamed","response_types":["code"]}"#)
            #expect(changed["name"] as? String == "Renamed" && changed["response_types"] as? [String] == ["code"])
            #expect(changed["redirect_uris"] as? [String] == ["https://app.example/cb"])
            Self.expectProblem(
                try await admin.send(.patch, "/clients/backend-1", json: "{}"), .badRequest, error: "missing_argument")
            Self.expectProblem(try await admin.send(.patch, "/clients/demo-mobile-app", json: #"{"name":"x"}"#), .forbidden)

            let rotated = try await admin.send(.post, "/clients/backend-1/rotate-secret")
            let newSecret = try #require(rotated["client_secret"] as? String)
            #expect(newSecret != secret)
            await #expect(throws: CaptureError.invalidClient) {
                try await world.service.clients.authenticateClient(id: "backend-1", secret: secret)
            }
            _ = try await world.service.clients.authenticateClient(id: "backend-1", secret: newSecret)

            try await world.register("c@example.com")
            let revoked = try await admin.send(.post, "/clients/demo-mobile-app/revoke-tokens")
            #expect(revoked["revoked"] as? Int == 2)
            let removed = try await admin.send(.delete, "/clients/backend-1")
            #expect(removed["removed"] as? String == "backend-1")
            Self.expectProblem(try await admin.get("/clients/backend-1"), .notFound)

            let audit = try await admin.get("/audit?target=backend-1")
            let actions = admin.items(audit).compactMap { $0["action"] as? String }
            // Refusals are rows too (the duplicate add, the empty change), with their outcome.
            #expect(
                actions == [
                    "client.remove", "client.rotate_secret", "client.update", "client.update", "client.add", "client.add",
                ])
            #expect(!audit.text.contains(secret) && !audit.text.contains(newSecret))
            let paged = try await admin.get("/audit?target=backend-1&limit=2&offset=1")
            #expect(admin.items(paged).compactMap { $0["action"] as? String } == ["client.rotate_secret", "client.update"])
        }
    }

    @Test func securityEventsAreAuditedOnceABurstAndWithoutSecrets() async throws {
        try await withAPI(configure: { $0.signInMaxFailures = 3 }) { _, world in
            let grant = try await world.register("victim@example.com").grant!
            // A refresh token used twice: the chain is revoked and the reuse recorded.
            _ = try await world.service.tokens.refresh(
                refreshToken: grant.refreshToken, clientID: "demo-mobile-app", clientSecret: nil)
            await #expect(throws: CaptureError.self) {
                try await world.service.tokens.refresh(
                    refreshToken: grant.refreshToken, clientID: "demo-mobile-app", clientSecret: nil)
            }
            let reuse = try #require(try await world.service.audit.auditLog(AuditFilter(action: "token.reuse")).first)
            #expect(reuse.actor == "service" && reuse.outcome == "chain_revoked")
            #expect(reuse.target == String(TokenMinter.hash(grant.refreshToken).prefix(12)))

            for _ in 0..<8 {
                _ = try? await world.service.signIn.signIn(
                    FlowRequest(
                        parameters: TestWorld.signIn(email: "victim@example.com", password: "wrong password!"),
                        remoteAddress: "198.51.100.7"))
            }
            let bursts = try await world.service.audit.auditLog(AuditFilter(action: "signin.burst"))
            #expect(bursts.count == 1 && bursts.first?.target == "victim@example.com")
            #expect(bursts.first?.outcome == "rate_limit_exceeded")

            let everything = try await world.service.audit.auditLog(AuditFilter(page: Page(limit: 1000)))
            for entry in everything {
                let text = "\(entry.target) \(entry.detail ?? "")"
                #expect(
                    !text.contains(grant.refreshToken) && !text.contains(grant.accessToken) && !text.contains("wrong password"))
            }
        }
    }

    @Test func auditRowsOlderThanTheRetentionArePurged() async throws {
        try await withAPI(configure: { $0.auditRetentionDays = 30 }) { _, world in
            let old = try await world.service.admin.createAdminKey(name: "old", by: .service).key
            world.time.advance(by: 31 * 86400)
            try await world.service.admin.revokeAdminKey(old.id, by: .service)
            #expect(try await world.service.audit.purgeAuditLog() == 1)
            #expect(try await world.service.audit.auditLog(AuditFilter()).map(\.action) == ["admin_key.revoke"])
        }
    }

    /// What an operator does for a person who asks (a deletion and its undoing, lost factors, the data download),
    /// each reply held to its documented shape on the way (Support/OpenAPIReplyCheck.swift).
    @Test func anOperatorDeactivatesReactivatesResetsFactorsAndExportsAUser() async throws {
        try await Self.withAdmin { admin, _, world in
            let user = try await world.register("cared@example.com").user
            let deactivated = try await admin.send(.post, "/users/\(user.id)/deactivate")
            #expect(deactivated.status == .ok && deactivated["delete_requested_at"] is String, "\(deactivated.text)")
            let reactivated = try await admin.send(.post, "/users/\(user.id)/reactivate")
            #expect(reactivated.status == .ok && reactivated["delete_requested_at"] is NSNull, "\(reactivated.text)")
            try await world.service.store.secondFactors.save(
                SecondFactor(userID: user.id, sealedSecret: "sealed", recoveryHashes: ["h"], createdAt: world.time.now()))
            let reset = try await admin.send(.post, "/users/\(user.id)/reset-factors")
            #expect(reset.status == .ok && reset["second_factor_removed"] as? Bool == true, "\(reset.text)")
            #expect(reset["passkeys_removed"] as? Int == 0)
            let export = try await admin.get("/users/\(user.id)/export")
            let record = export["record"] as? [String: Any]
            #expect(export.status == .ok && record?["email"] as? String == "cared@example.com", "\(export.text)")
        }
    }

    @Test func withAnAdminPortTheMainRouterHasNoAdminAPI() async throws {
        let world = try await TestWorld.make()
        let key = try await world.service.admin.createAdminKey(name: "split", by: .service).presented
        let main = API(router: try buildRouter(features: world.service, servesAdmin: false))
        #expect(try await main.get("/admin/v1/tokens", headers: [.authorization: "Bearer \(key)"]).status == .notFound)
        let admin = API(router: buildAdminRouter(features: world.service))
        #expect(try await admin.get("/admin/v1/tokens", headers: [.authorization: "Bearer \(key)"]).status == .ok)
        #expect(try await admin.get("/flows/webViewSignIn").status == .notFound)
    }
}
