import CaptureCore
import CaptureJSON
import CaptureOutbound
import CaptureServer
import CaptureTestSupport
import Crypto
import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import Testing

/// Social sign-in in redirect mode against a real OpenID Connect provider (PyPI's oidc-provider-mock, Authlib) on
/// loopback: the page is sent to the provider with state, nonce and PKCE; the provider's code is exchanged over
/// libcurl and its ID token checked against its published keys; the page gets a one-time token that
/// `/oauth/auth_native`, `/oauth/register_native` and a merge redeem.
@Suite(.serialized) struct SocialSignInTests {
    @Test func aNewUserIsRegisteredFromTheProviderAndSignsInAgainAsThemselves() async throws {
        try await Self.withProvider { issuer, api, world, service in
            try await Self.provide(
                issuer, subject: "zoe",
                claims: [
                    "email": "Zoe@Example.com", "email_verified": true, "given_name": "Zoë", "family_name": "Ångström",
                    "name": "Zoë Å",
                ])
            let first = try await Self.roundTrip(api, subject: "zoe")
            #expect(first.location.hasPrefix(Self.page + "#"))
            #expect(first.fragment["provider"] == "mock")
            let token = try #require(first.fragment["capture_social_token"])
            let signedUp = try await Self.authNative(api, token: token)
            #expect(signedUp.stat == "ok" && signedUp["is_new"] as? Bool == true)
            #expect(signedUp["access_token"] is String)
            let user = try #require(signedUp["capture_user"] as? [String: Any])
            #expect(user["email"] as? String == "zoe@example.com" && user["givenName"] as? String == "Zoë")
            #expect(user["familyName"] as? String == "Ångström" && user["displayName"] as? String == "Zoë Å")
            #expect(user["emailVerified"] is String, "the provider vouched for the address")
            let stored = try #require(try await service.store.users.find(email: "zoe@example.com"))
            #expect(stored.passwordHash == nil)
            let links = try await service.store.identities.list(userID: stored.id)
            #expect(links.map(\.provider) == ["mock"] && links.map(\.subject) == ["zoe"])

            // The token worked once.
            let again = try await Self.authNative(api, token: token)
            #expect(again.code == 200 && again["argument"] as? String == "token")

            // The next visit signs the same person in.
            let second = try await Self.roundTrip(api, subject: "zoe")
            let back = try await Self.authNative(api, token: try #require(second.fragment["capture_social_token"]))
            #expect(back.stat == "ok" && back["is_new"] as? Bool == false)
            #expect((back["capture_user"] as? [String: Any])?["uuid"] as? String == stored.id)
            let access = try #require(back["access_token"] as? String)
            let introspected = try await service.tokens.introspect(token: access)
            #expect(introspected?.record.authProvider == "mock" && introspected?.account.id == stored.id)
        }
    }

    @Test func withoutThinRegistrationTheFormComesBackPrefilledAndRegisterNativeFinishes() async throws {
        try await Self.withProvider { issuer, api, world, service in
            try await Self.provide(issuer, subject: "sam", claims: ["email": "sam@example.com", "given_name": "Sam"])
            let token = try #require(try await Self.roundTrip(api, subject: "sam").fragment["capture_social_token"])
            let asked = try await Self.authNative(api, token: token, thin: false)
            #expect(asked.code == 310 && asked["error"] as? String == "record_not_found")
            let prefill = try #require(asked["prereg_fields"] as? [String: String])
            // The provider did not vouch for the address: it is not offered (docs/contract.md §15); the person types one.
            #expect(prefill == ["firstName": "Sam"])

            var fields = TestWorld.flowParameters(form: "socialRegistrationForm")
            fields.merge([
                "token": token, "code_verifier": Self.verifier, "emailAddress": "sam@example.com", "displayName": "Sammy",
                "firstName": "Sam",
                "lastName": "Sample", "redirect_uri": Self.page,
            ]) { $1 }
            let registered = try await api.post("/oauth/register_native", fields)
            #expect(registered.stat == "ok" && registered["is_new"] as? Bool == true)
            let user = try #require(registered["capture_user"] as? [String: Any])
            #expect(user["displayName"] as? String == "Sammy" && user["familyName"] as? String == "Sample")
            #expect(user["emailVerified"] is NSNull, "the provider did not vouch for this address: a code was mailed")
            #expect(try await api.post("/oauth/register_native", fields).code == 200, "the token is spent")
        }
    }

    @Test func aPlainOAuth2ProviderNamesItsUserThroughUserinfo() async throws {
        let plain: @Sendable (String) async throws -> (settings: SocialProviderSettings, secret: String) = { base in
            (
                SocialProviderSettings(
                    name: "mock", displayName: "Plain", authorizationEndpoint: base + "/oauth2/authorize",
                    tokenEndpoint: base + "/oauth2/token", userinfoEndpoint: base + "/userinfo", clientId: "capture-plain",
                    scopes: ["profile", "email"], allowPlainHTTP: true), "s3cret"
            )
        }
        try await Self.withConfiguredProvider(plain) { base, api in
            try await Self.provide(
                base, subject: "olga", claims: ["email": "olga@example.com", "email_verified": true, "name": "Olga"])
            let back = try await Self.roundTrip(api, subject: "olga", openID: false)
            let token = try #require(back.fragment["capture_social_token"], "\(back.fragment)")
            let signedUp = try await Self.authNative(api, token: token)
            #expect(signedUp.stat == "ok" && signedUp["is_new"] as? Bool == true)
            let user = try #require(signedUp["capture_user"] as? [String: Any])
            #expect(user["email"] as? String == "olga@example.com" && user["displayName"] as? String == "Olga")
            let profiles = try #require(user["profiles"] as? [[String: Any]])
            #expect(profiles.map { $0["identifier"] as? String } == ["mock:olga"])
        }
    }

    /// A provider that takes the client secret only in the token request's body (`client_secret_post`).
    @Test func aClientThatMustPostItsSecretSignsInWithTokenEndpointAuthMethod() async throws {
        for method in ["client_secret_post", "client_secret_basic"] {
            try await Self.withConfiguredProvider({ base in
                let client = try await Self.registerClient(at: base, method: "client_secret_post")
                return (
                    SocialProviderSettings(
                        name: "mock", displayName: "Posting", issuer: base, clientId: client.id, allowPlainHTTP: true,
                        tokenEndpointAuthMethod: method), client.secret
                )
            }) { base, api in
                try await Self.provide(base, subject: "poppy", claims: ["email": "poppy@example.com"])
                let back = try await Self.roundTrip(api, subject: "poppy")
                if method == "client_secret_post" {
                    #expect(back.fragment["capture_social_token"] != nil, "\(back.fragment)")
                } else {
                    // The provider refuses the other method: an error on the page, nothing more.
                    #expect(back.fragment["capture_social_error"] == "provider_error", "\(back.fragment)")
                }
            }
        }
    }

    /// The provider rotates its signing key. Its ID tokens name no `kid` (a key-id lookup cannot tell), so a token the
    /// cached set does not verify makes the service fetch the set again — at most once a minute, so a stream of
    /// forged tokens cannot make it hammer the provider. (Tokens naming an unknown `kid`: IDTokenTests.)
    @Test func aProviderThatRotatesItsSigningKeyIsFollowedOnceAMinuteAtMost() async throws {
        try await Self.withProvider { issuer, api, world, _ in
            try await Self.provide(issuer, subject: "rota", claims: ["email": "rota@example.com"])
            #expect(try await Self.roundTrip(api, subject: "rota").fragment["capture_social_token"] != nil)
            let rotated = try await Self.http.send(
                OutboundHTTPRequest(method: .post, url: issuer + "/_rotate_key", allowsPlainHTTP: true))
            #expect(rotated.status == 204)
            let tooSoon = try await Self.roundTrip(api, subject: "rota")
            #expect(tooSoon.fragment["capture_social_error"] == "invalid_id_token", "the set was fetched under a minute ago")
            world.time.advance(by: 61)
            let later = try await Self.roundTrip(api, subject: "rota")
            #expect(later.fragment["capture_social_token"] != nil, "\(later.fragment)")
        }
    }

    /// docs/contract.md §11: a hand-off token lives at most 60 s until it is first presented; a first presentation that ends
    /// on a form (310, 380) keeps it for the form.
    @Test func theOneTimeTokenLivesAMinuteUnlessAFormWaitsForIt() async throws {
        try await Self.withProvider { issuer, api, world, service in
            try await Self.provide(issuer, subject: "slow", claims: ["email": "slow@example.com"])
            let late = try #require(try await Self.roundTrip(api, subject: "slow").fragment["capture_social_token"])
            world.time.advance(by: SocialLogin.handOffLifetime + 1)
            let refused = try await Self.authNative(api, token: late)
            #expect(refused.code == 200 && refused["argument"] as? String == "token")

            let token = try #require(try await Self.roundTrip(api, subject: "slow").fragment["capture_social_token"])
            #expect(try await Self.authNative(api, token: token, thin: false).code == 310)
            world.time.advance(by: SocialLogin.formLifetime - 60)
            var fields = TestWorld.flowParameters(form: "socialRegistrationForm")
            fields.merge([
                "token": token, "code_verifier": Self.verifier, "emailAddress": "slow@example.com", "displayName": "Slow Typist",
                "redirect_uri": Self.page,
            ]) { $1 }
            let registered = try await api.post("/oauth/register_native", fields)
            #expect(registered.stat == "ok" && registered["is_new"] as? Bool == true)
        }
    }

    @Test func theSystemBrowserHandOffReturnsToTheAppWithAOneTimeTokenNeverATokenOfOurs() async throws {
        try await Self.withProvider { issuer, api, world, service in
            try await Self.provide(issuer, subject: "kai", claims: ["email": "kai@example.com", "email_verified": true])
            // The page hands this URL to the host, which opens it in ASWebAuthenticationSession / Custom Tabs.
            let app = "com.example.capturebridge:/social"
            let (callback, cookie) = try await Self.providerAnswer(
                api, subject: "kai",
                startQuery: "&app_return_uri=" + app.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
            let back = try await api.get(callback, headers: [.cookie: cookie])
            let location = try #require(back.headers[.location])
            #expect(location.hasPrefix(app + "#capture_social_token="))
            #expect(!location.contains("access_token"))
            // The host hands the token to the page, which redeems it as after a redirect.
            let token = try #require(Self.fragment(of: location)["capture_social_token"])
            let signedIn = try await Self.authNative(api, token: token)
            #expect(signedIn.stat == "ok" && signedIn["is_new"] as? Bool == true)

            // An app address the client does not list is refused before anything is sent anywhere.
            let evil = try await api.get(
                "/social/mock/start?" + Self.startParameters() + "&app_return_uri=com.evil.app%3A%2Fsocial")
            #expect(evil.status == .badRequest && evil.headers[.location] == nil)
        }
    }

    @Test func failuresEndOnThePageWithAReasonOrOnOurOwnPageNeverElsewhere() async throws {
        try await Self.withProvider { issuer, api, world, service in
            // The user cancels at the provider.
            let cancelled = try await Self.roundTrip(api, subject: "quitter", deny: true)
            #expect(cancelled.location.hasPrefix(Self.page + "#"))
            #expect(
                cancelled.fragment["capture_social_error"] == "cancelled" && cancelled.fragment["capture_social_token"] == nil)

            // A state nobody issued ends on our own page: no redirect anywhere.
            let unknown = try await api.get("/social/callback?state=forged&code=x")
            #expect(unknown.status == .badRequest && unknown.headers[.location] == nil)
            #expect(unknown.text.contains("Sign-in not finished"))
            // A provider's answer for a sign-in this browser did not start (login CSRF): its code is never
            // exchanged; the sign-in this browser did start is spent and ends on its own page with a reason.
            let start = try await api.get("/social/mock/start?" + Self.startParameters())
            let mine = String(try #require(start.headers[.setCookie]).split(separator: ";")[0])
            let foreign = try await api.get("/social/callback?state=someone-elses&code=x", headers: [.cookie: mine])
            #expect(foreign.status == .seeOther)
            let mixedUp = try #require(foreign.headers[.location])
            #expect(mixedUp.hasPrefix(Self.page + "#"))
            #expect(Self.fragment(of: mixedUp) == ["capture_social_error": "state_mismatch", "provider": "mock"])
            // (A moment later: the test's clock stands still, and a spent state's expiry is that same instant,
            // stored to the millisecond.)
            world.time.advance(by: 1)
            let again = try await api.get(
                "/social/callback?state=\(mine.dropFirst("capture_social_state=".count))&code=x", headers: [.cookie: mine])
            #expect(again.status == .badRequest && again.headers[.location] == nil, "the browser's sign-in was spent")
            // A mismatch with a cookie that names no live sign-in has no page to go back to.
            let stale = try await api.get("/social/callback?state=someone-elses&code=x", headers: [.cookie: mine])
            #expect(stale.status == .badRequest && stale.headers[.location] == nil)

            // A page that is not the client's, a provider we do not have, a client we do not know: refused at start.
            let elsewhere = try await api.get(
                "/social/mock/start?client_id=demo-mobile-app&flow=webViewSignIn&redirect_uri=https%3A%2F%2Fevil.example%2F")
            #expect(elsewhere.status == .badRequest && elsewhere.headers[.location] == nil)
            #expect(try await api.get("/social/nope/start?" + Self.startParameters()).status == .badRequest)
            #expect(try await api.get("/social/gone/start?" + Self.startParameters()).status == .badRequest)
            let stranger = try await api.get("/social/mock/start?client_id=ghost&flow=webViewSignIn&redirect_uri=" + Self.page)
            #expect(stranger.status == .badRequest)

            // The one-time token belongs to the client it was issued for, and nothing else takes it.
            try await Self.provide(issuer, subject: "eve", claims: ["email": "eve@example.com"])
            let token = try #require(try await Self.roundTrip(api, subject: "eve").fragment["capture_social_token"])
            #expect(try await Self.authNative(api, token: token + "x").code == 200)
            #expect(try await world.service.store.users.list(search: nil, page: Page()).isEmpty, "no half-created user")
            #expect(try await service.store.socialLogins.use(tokenHash: token) { ($0, $0) } == nil, "stored hashed")
        }
    }

    /// Engage's group answers a failing database in Engage's shape (`err.code` -1), with the security headers.
    @Test func engageAnswersAFailingDatabaseInItsOwnShape() async throws {
        try await Self.withProvider { _, api, world, _ in
            try await RouteGroupFaultTests.breakTables(["clients", "change_counters"], in: world)
            let reply = try await api.post(
                "/signin/oauth_token", ["provider": "mock", "token": "an-id-token", "client_id": "demo-mobile-app"])
            #expect(reply.status == .internalServerError)
            #expect(reply.stat == "fail" && (reply["err"] as? [String: Any])?["code"] as? Int == -1, "\(reply.text)")
            RouteGroupFaultTests.expectSecurityHeaders(reply, "/signin/oauth_token")
        }
    }

    @Test func theProviderGoneAtTheCallbackEndsOnThePageWithAReason() async throws {
        let provider = try await FixtureServer.start(script: Self.script, arguments: [])
        let issuer = "http://localhost:\(provider.port)"
        let world = try await TestWorld.make(time: .followingWallClock())
        var service = world.service
        service = service.with(
            social: await SocialProviders.discover(
                [SocialProviderSettings(name: "mock", displayName: "Mock", issuer: issuer, clientId: "c", allowPlainHTTP: true)],
                secrets: [:], transport: CurlProviderTransport(connectTimeoutSeconds: 1, totalTimeoutSeconds: 2)
            ).providers)
        do {
            let api = API(router: try buildRouter(features: service))
            let start = try await api.get("/social/mock/start?" + Self.startParameters())
            let authorize = try #require(start.headers[.location])
            let answer = try await Self.http.send(
                OutboundHTTPRequest(
                    method: .post, url: authorize,
                    headers: [OutboundHTTPHeader(name: "Content-Type", value: "application/x-www-form-urlencoded")],
                    body: Data("sub=late".utf8), allowsPlainHTTP: true))
            let callback = try #require(answer.header("Location"))
            await provider.stopped()
            let cookie = String(try #require(start.headers[.setCookie]).split(separator: ";")[0])
            let back = try await api.get(String(callback.dropFirst("http://127.0.0.1:8080".count)), headers: [.cookie: cookie])
            #expect(back.status == .seeOther)
            let fragment = Self.fragment(of: try #require(back.headers[.location]))
            #expect(fragment["capture_social_error"] == "provider_unreachable")
        }
    }
}
