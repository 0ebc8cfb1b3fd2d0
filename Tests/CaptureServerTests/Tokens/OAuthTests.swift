import CaptureCore
import CaptureTestSupport
import Foundation
import Hummingbird
import Testing

@Suite struct OAuthTests {
    @Test func refreshGrantRotatesInRFC6749Shape() async throws {
        try await withAPI { api, world in
            let grant = try await world.register("oauth@example.com").grant!
            let fields = ["grant_type": "refresh_token", "refresh_token": grant.refreshToken, "client_id": "demo-mobile-app"]
            let first = try await api.post("/oauth/token", fields)
            #expect(first.status == .ok)
            #expect(first["token_type"] as? String == "Bearer")
            #expect(first["expires_in"] as? Int == 3600)
            #expect(first["stat"] as? String == "ok")
            #expect(first["refresh_token"] as? String != grant.refreshToken)
            #expect(first.headers[.cacheControl] == "no-store")

            let replay = try await api.post("/oauth/token", fields)
            #expect(replay.status == .badRequest)
            #expect(replay["error"] as? String == "invalid_grant")
            #expect(replay["error_description"] is String)
            let newAccess = try #require(first["access_token"] as? String)
            #expect(try await api.post("/entity", ["access_token": newAccess]).code == 200, "replay revoked the chain")
        }
    }

    /// A refresh token of an account deactivated behind the service's back (another instance, the database itself)
    /// issues nothing and ends its session.
    @Test func aDeactivatedAccountsRefreshIssuesNothingAndEndsTheSession() async throws {
        try await withAPI { api, world in
            let result = try await world.register("off@example.com")
            let grant = try #require(result.grant)
            var user = try #require(try await world.service.store.users.find(id: result.user.id))
            user.disabledAt = Date()
            try await world.service.store.users.update(user)
            let refused = try await api.post(
                "/oauth/token",
                ["grant_type": "refresh_token", "refresh_token": grant.refreshToken, "client_id": "demo-mobile-app"])
            #expect(refused.status == .badRequest)
            #expect(refused["error"] as? String == "invalid_grant")
            #expect(refused["error_description"] as? String == "the account behind this grant is deactivated")
            let access = try await world.service.store.tokens.find(hash: TokenMinter.key(grant.accessToken))
            #expect(access?.revokedAt != nil, "the session's access token is revoked")
        }
    }

    @Test func grantTypeAndClientErrors() async throws {
        try await withAPI { api, world in
            #expect(try await api.post("/oauth/token", ["client_id": "demo-mobile-app"])["error"] as? String == "invalid_request")
            let unsupported = try await api.post("/oauth/token", ["client_id": "demo-mobile-app", "grant_type": "password"])
            #expect(unsupported["error"] as? String == "unsupported_grant_type")
            let unknownClient = try await api.post(
                "/oauth/token", ["client_id": "ghost", "grant_type": "refresh_token", "refresh_token": "x"])
            #expect(unknownClient.status == .unauthorized)
            #expect(unknownClient["error"] as? String == "invalid_client")
            #expect(unknownClient.headers[.wwwAuthenticate] != nil)
        }
    }

    @Test func confidentialClientsAuthenticateWithBasicOrForm() async throws {
        try await withAPI { api, world in
            let (_, secret) = try await world.service.clientAdmin.addClient(
                id: "backend", name: nil, confidential: true, redirectURIs: [], allowedOrigins: [], responseTypes: ["token"],
                legacyTokenURL: false)
            let secretValue = try #require(secret)
            let basic = "Basic " + Data("backend:\(secretValue)".utf8).base64EncodedString()
            let noSecret = try await api.post("/oauth/revoke", ["token": "x", "client_id": "backend"])
            #expect(noSecret.status == .unauthorized)
            let wrong = try await api.post("/oauth/revoke", ["token": "x", "client_id": "backend", "client_secret": "nope"])
            #expect(wrong.status == .unauthorized)
            #expect(try await api.post("/oauth/revoke", ["token": "x"], headers: [.authorization: basic]).status == .ok)
            #expect(
                try await api.post("/oauth/revoke", ["token": "x", "client_id": "backend", "client_secret": secretValue]).status
                    == .ok)
        }
    }

    @Test func revocationSignsOutAtOnceAndIgnoresUnknownTokens() async throws {
        try await withAPI { api, world in
            let grant = try await world.register("bye@example.com").grant!
            let unknown = try await api.post("/oauth/revoke", ["token": "never-issued", "client_id": "demo-mobile-app"])
            #expect(unknown.status == .ok)
            let revoked = try await api.post(
                "/oauth/revoke", ["token": grant.accessToken, "token_type_hint": "access_token", "client_id": "demo-mobile-app"])
            #expect(revoked.status == .ok)
            #expect(
                try await api.post("/entity", ["access_token": grant.accessToken])["error"] as? String == "invalid_access_token")
            let refresh = try await api.post(
                "/oauth/token",
                ["grant_type": "refresh_token", "refresh_token": grant.refreshToken, "client_id": "demo-mobile-app"])
            #expect(refresh["error"] as? String == "invalid_grant", "signing out ends the whole session")
        }
    }
}
