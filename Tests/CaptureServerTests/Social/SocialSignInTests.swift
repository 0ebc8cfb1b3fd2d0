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
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/oidc_provider.py").path
    static let page = "http://127.0.0.1:8080/flows/webViewSignIn"
    static let http = OutboundHTTPClient()

    /// A provider, a service that discovered it (and one that cannot be reached), and the router.
    static func withProvider(
        _ body:
            @escaping @Sendable (_ issuer: String, _ api: API, _ world: TestWorld, _ service: CaptureService) async throws -> Void
    ) async throws {
        let provider = try await FixtureServer.start(script: script, arguments: [])
        defer { provider.stop() }
        let issuer = "http://localhost:\(provider.port)"
        // The provider's ID tokens carry real times: the service's clock runs with real time too.
        let world = try await TestWorld.make(time: .followingWallClock())
        var service = world.service
        let (providers, problems) = await SocialProviders.discover(
            [
                SocialProviderSettings(
                    name: "mock", displayName: "Mock ID", issuer: issuer, clientId: "capture-bridge-test",
                    allowPlainHTTP: true),
                SocialProviderSettings(
                    name: "gone", displayName: "Gone", issuer: "http://127.0.0.1:1", clientId: "x", allowPlainHTTP: true),
            ],
            secrets: ["mock": "s3cret"], transport: CurlProviderTransport())
        #expect(providers.ordered.map(\.name) == ["mock"])
        #expect(problems.count == 1 && problems[0].hasPrefix("social provider 'gone' left out"), "\(problems)")
        service.social = providers
        let ready = service
        try await body(issuer, API(router: try buildRouter(service: ready)), world, ready)
    }

    /// The provider's user: claims set through its API, as its documentation shows.
    static func provide(_ issuer: String, subject: String, claims: JSONValue) async throws {
        let reply = try await http.send(
            OutboundHTTPRequest(
                method: .put, url: "\(issuer)/users/\(subject)",
                headers: [OutboundHTTPHeader(name: "Content-Type", value: "application/json")], body: claims.encoded(),
                allowsPlainHTTP: true))
        #expect(reply.status == 204)
    }

    /// The fixture provider as `configure` (given its base URL) sets it up in the service, named "mock".
    static func withConfiguredProvider(
        _ configure: @escaping @Sendable (_ base: String) async throws -> (settings: SocialProviderSettings, secret: String),
        _ body: @escaping @Sendable (_ base: String, _ api: API) async throws -> Void
    ) async throws {
        let provider = try await FixtureServer.start(script: script, arguments: [])
        defer { provider.stop() }
        let base = "http://localhost:\(provider.port)"
        let world = try await TestWorld.make(time: .followingWallClock())
        var service = world.service
        let (settings, secret) = try await configure(base)
        let (providers, problems) = await SocialProviders.discover(
            [settings], secrets: [settings.name: secret], transport: CurlProviderTransport())
        #expect(problems.isEmpty, "\(problems)")
        service.social = providers
        try await body(base, API(router: try buildRouter(service: service)))
    }

    /// A client registered at the provider (RFC 7591, as the fixture provider implements it) that may only
    /// authenticate with `method`; returns its id and secret.
    static func registerClient(at base: String, method: String) async throws -> (id: String, secret: String) {
        let body: JSONValue = [
            "redirect_uris": [.string("http://127.0.0.1:8080" + CaptureService.socialCallbackPath)],
            "token_endpoint_auth_method": .string(method),
        ]
        let reply = try await http.send(
            OutboundHTTPRequest(
                method: .post, url: base + "/oauth2/clients",
                headers: [OutboundHTTPHeader(name: "Content-Type", value: "application/json")], body: body.encoded(),
                allowsPlainHTTP: true))
        let client = try #require(try JSONSerialization.jsonObject(with: reply.body) as? [String: Any])
        return (try #require(client["client_id"] as? String), try #require(client["client_secret"] as? String))
    }

    /// The starter's PKCE pair (InitiatorBinding): the challenge goes to the start, the verifier with every redemption.
    static let verifier = "the-page-keeps-this-verifier-in-session-storage-0123456789"
    static let challenge = Data(SHA256.hash(data: Data(verifier.utf8))).base64URLEncoded()

    static func startParameters(responseType: String = "token", challenge: String = challenge) -> String {
        "client_id=demo-mobile-app&flow=webViewSignIn&locale=en-US&response_type=\(responseType)&redirect_uri="
            + page.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            + "&code_challenge=\(challenge)&code_challenge_method=S256"
    }

    /// The page's button → the provider (the user picks `subject` there): the callback's path and query, and the state
    /// cookie of the browser that started (`startQuery` appended to the start's parameters).
    static func providerAnswer(
        _ api: API, subject: String, deny: Bool = false, openID: Bool = true, startQuery: String = ""
    ) async throws -> (callback: String, cookie: String) {
        let start = try await api.get("/social/mock/start?" + startParameters() + startQuery)
        #expect(start.status == .found)
        // The browser keeps the state cookie for the callback path only.
        let setCookie = try #require(start.headers[.setCookie])
        #expect(
            setCookie.contains("Path=/social/callback") && setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Lax"))
        let authorize = try #require(start.headers[.location])
        #expect(authorize.contains("code_challenge_method=S256") && authorize.contains("state="))
        #expect(authorize.contains("nonce=") == openID, "a nonce exactly for OpenID Connect")
        // The user answers the provider's sign-in form.
        let form = deny ? "sub=\(subject)&action=deny" : "sub=\(subject)"
        let answer = try await http.send(
            OutboundHTTPRequest(
                method: .post, url: authorize,
                headers: [OutboundHTTPHeader(name: "Content-Type", value: "application/x-www-form-urlencoded")],
                body: Data(form.utf8), allowsPlainHTTP: true))
        #expect(answer.status == 302)
        let callback = try #require(answer.header("Location"))
        #expect(callback.hasPrefix("http://127.0.0.1:8080/social/callback?"))
        return (String(callback.dropFirst("http://127.0.0.1:8080".count)), String(setCookie.split(separator: ";")[0]))
    }

    /// `providerAnswer`, then our callback in the browser that started; returns where the callback sends the browser
    /// (the page with its fragment).
    static func roundTrip(
        _ api: API, subject: String, deny: Bool = false, openID: Bool = true
    ) async throws
        -> (location: String, fragment: [String: String])
    {
        let (callback, cookie) = try await providerAnswer(api, subject: subject, deny: deny, openID: openID)
        let back = try await api.get(callback, headers: [.cookie: cookie])
        #expect(back.status == .seeOther)
        let location = try #require(back.headers[.location])
        #expect(back.headers[HTTPField.Name("Referrer-Policy")!] == "no-referrer")
        return (location, fragment(of: location))
    }

    static func fragment(of url: String) -> [String: String] {
        guard let hash = url.firstIndex(of: "#") else { return [:] }
        var values: [String: String] = [:]
        for pair in url[url.index(after: hash)...].split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? String($0) }
            if parts.count == 2 { values[parts[0]] = parts[1] }
        }
        return values
    }

    static func authNative(_ api: API, token: String, thin: Bool = true, verifier: String? = verifier) async throws -> Reply {
        var fields = TestWorld.flowParameters(form: "")
        fields["form"] = nil
        fields["token"] = token
        fields["code_verifier"] = verifier
        if thin { fields["thin_registration"] = "true" }
        fields["redirect_uri"] = page
        return try await api.post("/oauth/auth_native", fields)
    }

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
            let introspected = try await service.introspect(token: access)
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

    @Test func anAddressOfAnExistingAccountAsksForThePasswordThenLinks() async throws {
        try await Self.withProvider { issuer, api, world, service in
            try await world.register("ada@example.com", password: "correct horse battery")
            try await Self.provide(issuer, subject: "ada-at-mock", claims: ["email": "ada@example.com", "email_verified": true])
            let token = try #require(try await Self.roundTrip(api, subject: "ada-at-mock").fragment["capture_social_token"])
            let merge = try await Self.authNative(api, token: token)
            #expect(merge.code == 380 && merge["existing_provider"] as? String == "capture")
            // The address (the provider's own claim) comes back so the merge screen can fill it in.
            #expect(merge["existing_email"] as? String == "ada@example.com")
            #expect(try await service.store.users.find(email: "ada@example.com")?.passwordHash != nil, "nothing signed in")

            var wrong = TestWorld.signIn(email: "ada@example.com", password: "not the password")
            wrong["merge_token"] = token
            wrong["code_verifier"] = Self.verifier
            #expect(try await api.post("/oauth/auth_native_traditional", wrong).code == 210)
            var right = TestWorld.signIn(email: "ada@example.com", password: "correct horse battery")
            right["merge_token"] = token
            right["code_verifier"] = Self.verifier
            let merged = try await api.post("/oauth/auth_native_traditional", right)
            #expect(merged.stat == "ok")

            // From now on the provider account signs in to Ada's account.
            let next = try #require(try await Self.roundTrip(api, subject: "ada-at-mock").fragment["capture_social_token"])
            let signedIn = try await Self.authNative(api, token: next)
            #expect(signedIn.stat == "ok" && signedIn["is_new"] as? Bool == false)
            #expect((signedIn["capture_user"] as? [String: Any])?["email"] as? String == "ada@example.com")
        }
    }

    /// A merge token rides a sign-in with a provider account that belongs to no account: refused, nothing made.
    @Test func aMergeThroughAProviderAccountOfNoAccountIsRefusedAndMakesNoAccount() async throws {
        try await Self.withProvider { issuer, api, world, _ in
            try await Self.provide(issuer, subject: "first", claims: ["email": "first@example.com"])
            try await Self.provide(issuer, subject: "stranger", claims: ["email": "stranger@example.com"])
            let first = try #require(try await Self.roundTrip(api, subject: "first").fragment["capture_social_token"])
            let other = try #require(try await Self.roundTrip(api, subject: "stranger").fragment["capture_social_token"])
            var fields = TestWorld.flowParameters(form: "")
            fields["form"] = nil
            fields.merge([
                "token": other, "merge_token": first, "thin_registration": "true", "redirect_uri": Self.page,
                "code_verifier": Self.verifier,
            ]) { $1 }
            let refused = try await api.post("/oauth/auth_native", fields)
            #expect(refused.code == 200 && refused["argument"] as? String == "merge_token")
            #expect(try await world.service.store.users.list(search: nil, page: Page()).isEmpty)
        }
    }

    @Test func aSignedInUserLinksAndUnlinksProviderAccountsAndTheRecordListsThem() async throws {
        try await Self.withProvider { issuer, api, world, service in
            let access = try #require(try await world.registerProven("lin@example.com").grant?.accessToken)
            try await Self.provide(issuer, subject: "lin-elsewhere", claims: ["email": "lin@elsewhere.example"])
            let token = try #require(try await Self.roundTrip(api, subject: "lin-elsewhere").fragment["capture_social_token"])
            // As jump.android sends it (Capture.performLinkAccount).
            var link = TestWorld.flowParameters(form: "")
            link["form"] = nil
            link.merge([
                "access_token": access, "token": token, "redirect_uri": Self.page, "flow_version": "20261122",
                "code_verifier": Self.verifier,
            ]) { $1 }
            let linked = try await api.post("/oauth/link_account_native", link)
            #expect(linked.stat == "ok")
            let record = try await api.post("/entity", ["access_token": access])
            let profiles = try #require((record["result"] as? [String: Any])?["profiles"] as? [[String: Any]])
            #expect(profiles.count == 1 && profiles[0]["domain"] as? String == "mock")
            #expect(
                profiles[0]["identifier"] as? String == "mock:lin-elsewhere"
                    && profiles[0]["email"] as? String == "lin@elsewhere.example")

            // The provider account now signs in to Lin's account.
            let next = try #require(try await Self.roundTrip(api, subject: "lin-elsewhere").fragment["capture_social_token"])
            let signedIn = try await Self.authNative(api, token: next)
            #expect((signedIn["capture_user"] as? [String: Any])?["email"] as? String == "lin@example.com")

            // Someone else cannot take it over.
            let other = try #require(try await world.registerProven("other@example.com").grant?.accessToken)
            let again = try #require(try await Self.roundTrip(api, subject: "lin-elsewhere").fragment["capture_social_token"])
            link["access_token"] = other
            link["token"] = again
            let stolen = try await api.post("/oauth/link_account_native", link)
            #expect(stolen.code == 403)

            // Unlink as jump.android sends it (Capture.performUnlinkAccount).
            let unlink: [String: String] = [
                "client_id": "demo-mobile-app", "locale": "en-US", "identifier_to_remove": "mock:lin-elsewhere",
                "access_token": access, "flow": "webViewSignIn", "flow_version": "20261122",
            ]
            let unlinked = try await api.post("/oauth/unlink_account_native", unlink)
            #expect(unlinked.stat == "ok")
            #expect(((unlinked["capture_user"] as? [String: Any])?["profiles"] as? [Any])?.isEmpty == true)
            #expect(try await api.post("/oauth/unlink_account_native", unlink).code == 310)
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

    @Test func anAccountMadeByAProviderKeepsItsOnlyWayIn() async throws {
        try await Self.withProvider { issuer, api, world, service in
            try await Self.provide(issuer, subject: "solo", claims: ["email": "solo@example.com", "email_verified": true])
            let token = try #require(try await Self.roundTrip(api, subject: "solo").fragment["capture_social_token"])
            let access = try #require(try await Self.authNative(api, token: token)["access_token"] as? String)
            let refused = try await api.post(
                "/oauth/unlink_account_native",
                ["client_id": "demo-mobile-app", "identifier_to_remove": "mock:solo", "access_token": access])
            #expect(refused.code == 403 && (refused["error_description"] as? String)?.contains("set a password") == true)
            let user = try #require(try await service.store.users.find(email: "solo@example.com"))
            #expect(try await service.linkedAccounts(of: user).map(\.identifier) == ["mock:solo"])
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
        service.social = await SocialProviders.discover(
            [SocialProviderSettings(name: "mock", displayName: "Mock", issuer: issuer, clientId: "c", allowPlainHTTP: true)],
            secrets: [:], transport: CurlProviderTransport(connectTimeoutSeconds: 1, totalTimeoutSeconds: 2)
        ).providers
        do {
            let api = API(router: try buildRouter(service: service))
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
