import CaptureCore
import CaptureOutbound
import CaptureTestSupport
import Foundation
import Testing

/// Janrain Engage's `/signin/oauth_token`, which jump.ios (`JRNativeAuth`) and jump.android (`JROpenIDAppAuth`) call
/// after the app signed in with the provider's own SDK: `token` and `provider` in, `{"stat":"ok","token":…}` out,
/// and that token then goes to `/oauth/auth_native` as after a redirect. The provider is the real one the other
/// social tests use; the app's own sign-in at it is made here as a native SDK makes it (its own client id, nonce).
@Suite(.serialized) struct NativeSignInTests {
    static let nativeClient = "native-ios-app"

    static func configured(
        acceptAccessTokens: Bool = false
    )
        -> @Sendable (String) async throws -> (settings: SocialProviderSettings, secret: String)
    {
        { base in
            var settings = SocialProviderSettings(
                name: "mock", displayName: "Mock ID", issuer: base, clientId: "capture-bridge-test", allowPlainHTTP: true)
            settings.nativeClientIds = [nativeClient]
            settings.acceptAccessTokens = acceptAccessTokens
            return (settings, "s3cret")
        }
    }

    /// The app's own sign-in at the provider (what Sign in with Google & co. do inside the app): its ID token and
    /// access token, issued to `clientID`.
    static func signInAtProvider(
        _ base: String, clientID: String, subject: String
    ) async throws
        -> (idToken: String, accessToken: String)
    {
        let redirect = "http://127.0.0.1:1/native-callback"
        let query = [
            ("response_type", "code"), ("client_id", clientID), ("redirect_uri", redirect), ("scope", "openid email profile"),
            ("state", "app-state"), ("nonce", "the-sdk-nonce"),
        ].map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)" }.joined(separator: "&")
        let answer = try await SocialSignInTests.http.send(
            OutboundHTTPRequest(
                method: .post, url: base + "/oauth2/authorize?" + query,
                headers: [OutboundHTTPHeader(name: "Content-Type", value: "application/x-www-form-urlencoded")],
                body: Data("sub=\(subject)".utf8), allowsPlainHTTP: true))
        let location = try #require(answer.header("Location"))
        let code = try #require(URLComponents(string: location)?.queryItems?.first { $0.name == "code" }?.value)
        let tokens = try await SocialSignInTests.http.send(
            OutboundHTTPRequest(
                method: .post, url: base + "/oauth2/token",
                headers: [OutboundHTTPHeader(name: "Content-Type", value: "application/x-www-form-urlencoded")],
                body: Data(
                    "grant_type=authorization_code&code=\(code)&redirect_uri=\(redirect)&client_id=\(clientID)&client_secret=app"
                        .utf8),
                allowsPlainHTTP: true))
        let json = try #require(try JSONSerialization.jsonObject(with: tokens.body) as? [String: Any])
        return (try #require(json["id_token"] as? String), try #require(json["access_token"] as? String))
    }

    @Test func anIDTokenFromTheAppsOwnProviderSignInBecomesAOneTimeTokenForAuthNative() async throws {
        try await SocialSignInTests.withConfiguredProvider(Self.configured()) { base, api in
            try await SocialSignInTests.provide(
                base, subject: "nat", claims: ["email": "nat@example.com", "email_verified": true])
            let app = try await Self.signInAtProvider(base, clientID: Self.nativeClient, subject: "nat")
            // jump.ios / jump.android send exactly these two parameters.
            let exchanged = try await api.post("/signin/oauth_token", ["token": app.idToken, "provider": "mock"])
            #expect(exchanged.status == .ok && exchanged.stat == "ok")
            let token = try #require(exchanged["token"] as? String)
            #expect(token != app.idToken && token.count >= 43)
            let signedIn = try await SocialSignInTests.authNative(api, token: token)
            #expect(signedIn.stat == "ok" && signedIn["is_new"] as? Bool == true, "\(signedIn.json)")
            let user = try #require(signedIn["capture_user"] as? [String: Any])
            #expect(user["email"] as? String == "nat@example.com" && user["emailVerified"] is String)
            #expect((user["profiles"] as? [[String: Any]])?.map { $0["identifier"] as? String } == ["mock:nat"])
            // Once only.
            #expect(try await SocialSignInTests.authNative(api, token: token)["argument"] as? String == "token")

            // jump.android names the provider in the URL; that (and nothing secret) may travel there.
            let again = try await Self.signInAtProvider(base, clientID: Self.nativeClient, subject: "nat")
            let viaQuery = try await api.post("/signin/oauth_token?providername=mock", ["token": again.idToken])
            let next = try #require(viaQuery["token"] as? String)
            let back = try await SocialSignInTests.authNative(api, token: next)
            #expect(back.stat == "ok" && back["is_new"] as? Bool == false)
        }
    }

    @Test func tokensThatDoNotProveTheUserToThisServiceAreRefusedInEngagesShape() async throws {
        try await SocialSignInTests.withConfiguredProvider(Self.configured()) { base, api in
            try await SocialSignInTests.provide(base, subject: "mal", claims: ["email": "mal@example.com"])
            // An ID token some other app obtained: its audience is not ours.
            let elsewhere = try await Self.signInAtProvider(base, clientID: "some-other-app", subject: "mal")
            let foreign = try await api.post("/signin/oauth_token", ["token": elsewhere.idToken, "provider": "mock"])
            #expect(foreign.status == .ok && foreign.stat == "fail")
            let error = try #require(foreign["err"] as? [String: Any])
            #expect(error["code"] as? Int == 3 && (error["msg"] as? String)?.contains("invalid_id_token") == true)
            // An access token says nothing about which app it was issued to: refused unless the settings allow it.
            let ours = try await Self.signInAtProvider(base, clientID: Self.nativeClient, subject: "mal")
            let access = try await api.post("/signin/oauth_token", ["token": ours.accessToken, "provider": "mock"])
            #expect((access["err"] as? [String: Any])?["code"] as? Int == 3)
            // A token that is not a token, a provider we do not have, nothing at all, a token in the URL.
            #expect(
                (try await api.post("/signin/oauth_token", ["token": "a.b.c", "provider": "mock"])["err"] as? [String: Any])?[
                    "code"] as? Int == 3)
            #expect(
                (try await api.post("/signin/oauth_token", ["token": ours.idToken, "provider": "nope"])["err"] as? [String: Any])?[
                    "code"] as? Int == 1)
            #expect(
                (try await api.post("/signin/oauth_token", ["provider": "mock"])["err"] as? [String: Any])?["code"] as? Int == 0)
            let inURL = try await api.post("/signin/oauth_token?token=\(ours.idToken)&provider=mock", [:])
            #expect(inURL.status == .badRequest && inURL.stat == "fail")
            let twitter = try await api.post(
                "/signin/oauth_token", ["token": ours.idToken, "provider": "mock", "token_secret": "oauth1"])
            #expect((twitter["err"] as? [String: Any])?["code"] as? Int == 1)
        }
    }

    @Test func aProviderThatAcceptsAccessTokensChecksThemAtUserinfo() async throws {
        try await SocialSignInTests.withConfiguredProvider(Self.configured(acceptAccessTokens: true)) { base, api in
            try await SocialSignInTests.provide(
                base, subject: "acc", claims: ["email": "acc@example.com", "email_verified": true])
            let app = try await Self.signInAtProvider(base, clientID: Self.nativeClient, subject: "acc")
            let exchanged = try await api.post("/signin/oauth_token", ["token": app.accessToken, "provider": "mock"])
            let token = try #require(exchanged["token"] as? String, "\(exchanged.json)")
            let signedIn = try await SocialSignInTests.authNative(api, token: token)
            #expect(signedIn.stat == "ok")
            #expect((signedIn["capture_user"] as? [String: Any])?["email"] as? String == "acc@example.com")
            let bogus = try await api.post("/signin/oauth_token", ["token": "not-an-access-token", "provider": "mock"])
            #expect((bogus["err"] as? [String: Any])?["code"] as? Int == 3)
        }
    }
}
