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

/// The provider, requests and answers the social sign-in suites share (`SocialSignInTests`, `SocialIntegrityTests`,
/// the SDK parameter passes): a real OpenID Connect provider on loopback and the page's side of the round trip.
extension SocialSignInTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/oidc_provider.py").path
    static let page = "http://127.0.0.1:8080/flows/webViewSignIn"
    static let http = OutboundHTTPClient()

    /// A provider, a service that discovered it (and one that cannot be reached), and the router.
    static func withProvider(
        configure: (inout ServiceSettings) -> Void = { _ in },
        _ body:
            @escaping @Sendable (_ issuer: String, _ api: API, _ world: TestWorld, _ service: CaptureFeatures) async throws ->
            Void
    ) async throws {
        let provider = try await FixtureServer.start(script: script, arguments: [])
        defer { provider.stop() }
        let issuer = "http://localhost:\(provider.port)"
        // The provider's ID tokens carry real times: the service's clock runs with real time too.
        let world = try await TestWorld.make(time: .followingWallClock(), configure: configure)
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
        service = service.with(social: providers)
        let ready = service
        try await body(issuer, API(router: try buildRouter(features: ready)), world, ready)
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
        service = service.with(social: providers)
        try await body(base, API(router: try buildRouter(features: service)))
    }

    /// A client registered at the provider (RFC 7591, as the fixture provider implements it) that may only
    /// authenticate with `method`; returns its id and secret.
    static func registerClient(at base: String, method: String) async throws -> (id: String, secret: String) {
        let body: JSONValue = [
            "redirect_uris": [.string("http://127.0.0.1:8080" + SocialService.socialCallbackPath)],
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
}
