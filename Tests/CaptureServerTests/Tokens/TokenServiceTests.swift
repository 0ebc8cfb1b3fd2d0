import CaptureCore
import CaptureTestSupport
import Foundation
import Hummingbird
import Testing

/// The token REST a backend uses: RFC 7662 introspection, BrowserID-style `/verify`, RFC 8414 metadata.
@Suite struct TokenServiceTests {
    /// A confidential backend client and an access token of the demo (public) client.
    static func backend(_ world: TestWorld) async throws -> (secret: String, token: String) {
        let (_, secret) = try await world.service.clientAdmin.addClient(
            id: "app-backend", name: nil, confidential: true, redirectURIs: [], allowedOrigins: ["https://app.example.com"],
            responseTypes: [], legacyTokenURL: false)
        let token = try await world.register("backend@example.com").grant!.accessToken
        return (try #require(secret), token)
    }

    @Test func introspectionAnswersRFC7662() async throws {
        try await withAPI { api, world in
            let (secret, token) = try await Self.backend(world)
            let basic = "Basic " + Data("app-backend:\(secret)".utf8).base64EncodedString()
            let active = try await api.post("/oauth/introspect", ["token": token], headers: [.authorization: basic])
            #expect(active.status == .ok)
            #expect(active["active"] as? Bool == true)
            #expect(active["client_id"] as? String == "demo-mobile-app")
            #expect(active["username"] as? String == "backend@example.com")
            #expect(active["email_verified"] as? Bool == false, "username is an address nobody proved yet, and says so")
            #expect(active["token_type"] as? String == "Bearer")
            #expect(active["sub"] is String && active["exp"] is Int && active["iat"] is Int)
            #expect(active.headers[.cacheControl] == "no-store")

            let viaForm = try await api.post(
                "/oauth/introspect", ["token": token, "client_id": "app-backend", "client_secret": secret])
            #expect(viaForm["active"] as? Bool == true)

            let unknown = try await api.post("/oauth/introspect", ["token": "made-up"], headers: [.authorization: basic])
            #expect(unknown.text == #"{"active":false}"#)
            world.time.advance(by: 3601)
            let expired = try await api.post("/oauth/introspect", ["token": token], headers: [.authorization: basic])
            #expect(expired.text == #"{"active":false}"#)
        }
    }

    @Test func introspectionNeedsAConfidentialClient() async throws {
        try await withAPI { api, world in
            let (_, token) = try await Self.backend(world)
            let publicClient = try await api.post("/oauth/introspect", ["token": token, "client_id": "demo-mobile-app"])
            #expect(publicClient.status == .unauthorized)
            #expect(publicClient["error"] as? String == "invalid_client")
            let wrongSecret = try await api.post(
                "/oauth/introspect", ["token": token, "client_id": "app-backend", "client_secret": "guess"])
            #expect(wrongSecret.status == .unauthorized)
            #expect(wrongSecret["active"] == nil, "nothing about the token leaks")
            // No client authentication at all: RFC 6749 §5.2's invalid_client with a challenge, not a 400.
            let anonymous = try await api.post("/oauth/introspect", ["token": token])
            #expect(anonymous.status == .unauthorized && anonymous["error"] as? String == "invalid_client")
            #expect(anonymous.headers[.wwwAuthenticate]?.hasPrefix("Basic") == true)
            #expect(anonymous["active"] == nil)
        }
    }

    @Test func verifyGivesABrowserIDReceipt() async throws {
        try await withAPI { api, world in
            let (_, token) = try await Self.backend(world)
            // Issue 27: BrowserID's `okay` means "this person controls this address"; right after registration nobody
            // proved it.
            let unproven = try await api.post("/verify", ["assertion": token, "audience": "http://127.0.0.1:8080"])
            #expect(unproven["status"] as? String == "failure" && unproven["email"] == nil)
            #expect((unproven["reason"] as? String)?.contains("not verified") == true)
            var user = try #require(try await world.service.store.users.find(email: "backend@example.com"))
            user.emailVerifiedAt = world.time.now()
            try await world.service.store.users.update(user)
            // The demo client's pages live on the service's own origin.
            let okay = try await api.post("/verify", ["assertion": token, "audience": "http://127.0.0.1:8080"])
            #expect(okay.status == .ok)
            #expect(okay["status"] as? String == "okay")
            #expect(okay["email_verified"] as? Bool == true)
            #expect(okay["email"] as? String == "backend@example.com")
            #expect(okay["audience"] as? String == "http://127.0.0.1:8080")
            #expect(okay["issuer"] as? String == "127.0.0.1:8080")
            let expires = try #require(okay["expires"] as? Int)
            #expect(expires == Int((world.time.now().timeIntervalSince1970 + 3600) * 1000))

            let otherAudience = try await api.post("/verify", ["assertion": token, "audience": "https://evil.example"])
            #expect(otherAudience["status"] as? String == "failure")
            #expect(otherAudience["reason"] is String)
            let bogus = try await api.post("/verify", ["assertion": "nope", "audience": "http://127.0.0.1:8080"])
            #expect(bogus["status"] as? String == "failure")
        }
    }

    /// A client may let `/verify` vouch for an unproven address; the receipt then says so.
    @Test func aClientThatAllowsUnverifiedAddressesGetsAReceiptThatSaysSo() async throws {
        try await withAPI { api, world in
            var demo = try #require(try await world.service.store.clients.find(id: "demo-mobile-app"))
            demo.allowUnverifiedEmail = true
            try await world.service.store.clients.upsert(demo)
            let token = try #require(try await world.register("unproven@example.com").grant?.accessToken)
            let receipt = try await api.post("/verify", ["assertion": token, "audience": "http://127.0.0.1:8080"])
            #expect(receipt["status"] as? String == "okay" && receipt["email_verified"] as? Bool == false)
        }
    }

    @Test func verifyRefusesMissingFieldsAndOtherContentTypes() async throws {
        try await withAPI { api, _ in
            let missing = try await api.post("/verify", ["assertion": "x"])
            #expect(missing.status == .badRequest)
            #expect(missing["status"] as? String == "failure")
            let json = try await api.post(
                "/verify", raw: ByteBuffer(string: #"{"assertion":"x","audience":"y"}"#), contentType: "application/json")
            #expect(json.status == .unsupportedMediaType)
            #expect(json["status"] as? String == "failure")
        }
    }

    @Test func metadataNamesTheEndpoints() async throws {
        try await withAPI { api, _ in
            let metadata = try await api.get("/.well-known/oauth-authorization-server")
            #expect(metadata.status == .ok)
            #expect(metadata["issuer"] as? String == "http://127.0.0.1:8080")
            #expect(metadata["token_endpoint"] as? String == "http://127.0.0.1:8080/oauth/token")
            #expect(metadata["introspection_endpoint"] as? String == "http://127.0.0.1:8080/oauth/introspect")
            #expect(metadata["revocation_endpoint"] as? String == "http://127.0.0.1:8080/oauth/revoke")
            #expect(metadata["response_types_supported"] as? [String] == ["code"])
            #expect(metadata["code_challenge_methods_supported"] as? [String] == ["S256"])
            // RFC 8414 §2: the authorization_code grant needs one (Authlib's validate() refuses metadata without it):
            // the OpenID Connect authorization endpoint, in front of the sign-in page.
            #expect(metadata["authorization_endpoint"] as? String == "http://127.0.0.1:8080/oidc/authorize")
            #expect(metadata["jwks_uri"] as? String == "http://127.0.0.1:8080/oidc/jwks")
        }
    }
}
