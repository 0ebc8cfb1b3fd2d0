import CaptureCore
import CaptureTestSupport
import Crypto
import Foundation
import Testing

/// `response_type=code`/`code_and_token` with PKCE, redeemed at `/oauth/token` (docs/contract.md §4.5, §5, §6).
@Suite struct AuthorizationCodeTests {
    static let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk-and-some-more-entropy"
    static let challenge = Data(SHA256.hash(data: Data(verifier.utf8))).base64URLEncoded()
    static let page = "http://127.0.0.1:8080/flows/webViewSignIn"
    /// The page's own address, as it sends it (`capture.redirectUri`): the code is bound to exactly this.
    static let pageOpened = page + "?client_id=demo-mobile-app&response_type=code"

    static func signIn(_ email: String, responseType: String = "code", challenge: String? = challenge) -> [String: String] {
        var fields = TestWorld.signIn(email: email, password: "correct horse battery")
        fields["response_type"] = responseType
        fields["redirect_uri"] = pageOpened
        if let challenge {
            fields["code_challenge"] = challenge
            fields["code_challenge_method"] = "S256"
        }
        return fields
    }

    static func exchange(_ code: String, verifier: String = verifier, redirectURI: String = pageOpened) -> [String: String] {
        [
            "grant_type": "authorization_code", "code": code, "redirect_uri": redirectURI, "code_verifier": verifier,
            "client_id": "demo-mobile-app",
        ]
    }

    @Test func codeWithPKCEIsExchangedOnceForTokens() async throws {
        try await withAPI { api, world in
            try await world.register("code@example.com")
            let signedIn = try await api.post("/oauth/auth_native_traditional", Self.signIn("code@example.com"))
            #expect(signedIn.stat == "ok")
            #expect(signedIn["access_token"] == nil, "response_type=code hands out no token")
            let code = try #require(signedIn["authorization_code"] as? String)
            let stored = try await world.service.store.tokens.list(TokenFilter(kind: .code)).map(\.hash)
            #expect(stored == [TokenMinter.key(code)])

            let tokens = try await api.post("/oauth/token", Self.exchange(code))
            #expect(tokens.status == .ok)
            #expect(tokens["token_type"] as? String == "Bearer")
            #expect(tokens.headers[.cacheControl] == "no-store")
            let access = try #require(tokens["access_token"] as? String)
            #expect(try await api.post("/entity", ["access_token": access]).stat == "ok")

            let replay = try await api.post("/oauth/token", Self.exchange(code))
            #expect(replay.status == .badRequest)
            #expect(replay["error"] as? String == "invalid_grant")
            #expect(try await api.post("/entity", ["access_token": access]).code == 200, "a replayed code revokes its tokens")
        }
    }

    @Test func publicClientsMustUsePKCE() async throws {
        try await withAPI { api, world in
            try await world.register("nopkce@example.com")
            let missing = try await api.post("/oauth/auth_native_traditional", Self.signIn("nopkce@example.com", challenge: nil))
            #expect(missing.code == 100)
            #expect(missing["argument"] as? String == "code_challenge")
            var plain = Self.signIn("nopkce@example.com")
            plain["code_challenge_method"] = "plain"
            #expect(try await api.post("/oauth/auth_native_traditional", plain)["argument"] as? String == "code_challenge_method")
        }
    }

    @Test func theExchangeChecksVerifierRedirectClientAndTime() async throws {
        try await withAPI { api, world in
            try await world.register("checks@example.com")
            func freshCode() async throws -> String {
                try #require(
                    try await api.post("/oauth/auth_native_traditional", Self.signIn("checks@example.com"))["authorization_code"]
                        as? String)
            }
            let code = try await freshCode()
            let wrongVerifier = try await api.post(
                "/oauth/token", Self.exchange(code, verifier: String(repeating: "a", count: 43)))
            #expect(wrongVerifier["error"] as? String == "invalid_grant")
            var noVerifier = Self.exchange(code)
            noVerifier.removeValue(forKey: "code_verifier")
            #expect(try await api.post("/oauth/token", noVerifier)["error"] as? String == "invalid_request")
            let elsewhere = try await api.post(
                "/oauth/token", Self.exchange(code, redirectURI: "https://evil.example/flows/webViewSignIn"))
            #expect(elsewhere["error"] as? String == "invalid_grant")
            #expect(elsewhere.code == 420)
            // RFC 6749 §4.1.3: the very redirect_uri the code was issued for, not one like it (RFC 9700 §4.1.3); a
            // page's code also with the page's registered address (Self.page, below).
            for similar in [
                Self.pageOpened + "&x=1", Self.page + "?client_id=demo-mobile-app", Self.pageOpened.uppercased(),
                Self.pageOpened + "#", Self.page + "/",
            ] {
                let refused = try await api.post("/oauth/token", Self.exchange(code, redirectURI: similar))
                #expect(refused.code == 420, "\(similar)")
            }
            // None of those consumed the code.
            #expect(try await api.post("/oauth/token", Self.exchange(code)).stat == "ok")

            let late = try await freshCode()
            world.time.advance(by: 61)
            let expired = try await api.post("/oauth/token", Self.exchange(late))
            #expect(expired["error"] as? String == "invalid_grant")
            #expect(expired.code == 415)

            let (_, secret) = try await world.service.clientAdmin.addClient(
                id: "other-backend", name: nil, confidential: true, redirectURIs: [], allowedOrigins: [],
                responseTypes: ["code"], legacyTokenURL: false)
            let stolen = try await freshCode()
            var asOther = Self.exchange(stolen)
            asOther["client_id"] = "other-backend"
            asOther["client_secret"] = secret
            #expect(try await api.post("/oauth/token", asOther)["error"] as? String == "invalid_grant")
        }
    }

    /// A confidential client's own page (a Janrain plugin's sign-in, whose backend holds the secret) signs people in
    /// without the secret, but only ever gets a code: tokens, and the code's exchange, need the secret.
    @Test func aConfidentialClientsPageGetsOnlyACodeWithoutTheSecret() async throws {
        try await withAPI { api, world in
            let site = "https://www.example.com/signin"
            let (_, secret) = try await world.service.clientAdmin.addClient(
                id: "site-backend", name: nil, confidential: true, redirectURIs: [site],
                allowedOrigins: ["https://www.example.com"], responseTypes: ["token", "code", "code_and_token"],
                legacyTokenURL: false)
            try await world.register("site@example.com")
            func signIn(_ responseType: String, secret: String? = nil) async throws -> Reply {
                var fields = Self.signIn("site@example.com", responseType: responseType, challenge: nil)
                fields["client_id"] = "site-backend"
                fields["redirect_uri"] = site
                fields["client_secret"] = secret
                return try await api.post("/oauth/auth_native_traditional", fields)
            }
            for tokens in ["token", "code_and_token"] {
                let refused = try await signIn(tokens)
                #expect(refused["error"] as? String == "invalid_client" && refused["access_token"] == nil, "\(tokens)")
            }
            let page = try await signIn("code")
            #expect(page.stat == "ok" && page["access_token"] == nil)
            let code = try #require(page["authorization_code"] as? String)
            var exchange = ["grant_type": "authorization_code", "code": code, "redirect_uri": site, "client_id": "site-backend"]
            #expect(try await api.post("/oauth/token", exchange)["error"] as? String == "invalid_client")
            exchange["client_secret"] = secret
            let tokens = try await api.post("/oauth/token", exchange)
            #expect(tokens.status == .ok && tokens["access_token"] is String)
            // A wrong secret is still refused, whatever the response type.
            #expect(try await signIn("code", secret: "wrong")["error"] as? String == "invalid_client")
            #expect(try await signIn("token", secret: secret!).stat == "ok")
        }
    }

    @Test func aPagesCodeIsAlsoRedeemedWithThePagesRegisteredAddress() async throws {
        try await withAPI { api, world in
            try await world.register("page@example.com")
            let signedIn = try await api.post("/oauth/auth_native_traditional", Self.signIn("page@example.com"))
            let code = try #require(signedIn["authorization_code"] as? String)
            #expect(try await api.post("/oauth/token", Self.exchange(code, redirectURI: Self.page)).stat == "ok")
        }
    }

    @Test func codeAndTokenHandsOutBoth() async throws {
        try await withAPI { api, world in
            try await world.register("both@example.com")
            let reply = try await api.post(
                "/oauth/auth_native_traditional", Self.signIn("both@example.com", responseType: "code_and_token"))
            #expect(reply["access_token"] is String)
            #expect(reply["refresh_token"] is String)
            let code = try #require(reply["authorization_code"] as? String)
            #expect(try await api.post("/oauth/token", Self.exchange(code)).stat == "ok")
        }
    }

    @Test func pagesCarryTheChallengeIntoJanrainSettings() async throws {
        try await withAPI { api, _ in
            let page = try await api.get(
                "/flows/webViewSignIn?client_id=demo-mobile-app&response_type=code&code_challenge=\(Self.challenge)&code_challenge_method=S256"
            )
            #expect(page.status == .ok)
            #expect(page.text.contains(#""codeChallenge":"\#(Self.challenge)""#))
            #expect(page.text.contains(#""responseType":"code""#))
            let withoutPKCE = try await api.get("/flows/webViewSignIn?client_id=demo-mobile-app&response_type=code")
            #expect(withoutPKCE.status == .badRequest)
            #expect(withoutPKCE.text.contains("code_challenge"))
        }
    }
}
