import CaptureCore
import CaptureJSON
import Foundation
import Testing

/// What `/oidc/authorize` accepts of a request, and the sealed form the pages carry (docs/oidc.md).
@Suite struct AuthorizationRequestTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let app = Client(
        clientID: "app", name: "App", redirectURIs: ["com.example:/cb"], responseTypes: [.code], createdAt: now)
    static let challenge = String(repeating: "a", count: 43)
    static let good = [
        "response_type": "code", "scope": "openid email", "state": "s", "nonce": "n", "code_challenge": challenge,
        "code_challenge_method": "S256", "ui_locales": "de-DE fr", "max_age": "300", "login_hint": "a@example.com",
    ]

    static func read(_ changes: [String: String?]) throws(AuthorizationError) -> AuthorizationRequest {
        var parameters = good
        for (name, value) in changes { parameters[name] = value }
        return try AuthorizationRequest.read(
            parameters, client: app, redirectURI: "com.example:/cb", issuer: "https://id.example", now: now)
    }

    @Test func aGoodRequestIsReadWhole() throws {
        let request = try Self.read([:])
        #expect(request.scopes == ["openid", "email"] && request.wantsIDToken)
        #expect(request.nonce == "n" && request.state == "s" && request.maxAge == 300)
        #expect(request.uiLocales == ["de-DE", "fr"] && request.loginHint == "a@example.com")
        #expect(request.codeChallenge == Self.challenge && request.issuer == "https://id.example")
    }

    @Test(
        arguments: [
            (["response_type": "token"], "unsupported_response_type"),
            (["response_type": nil], "invalid_request"),
            (["request": "x.y.z"], "request_not_supported"),
            (["request_uri": "https://x"], "request_uri_not_supported"),
            (["code_challenge": nil], "invalid_request"),
            (["code_challenge_method": "plain"], "invalid_request"),
            (["prompt": "none consent"], "invalid_request"),
            (["prompt": "sometimes"], "invalid_request"),
            (["max_age": "soon"], "invalid_request"),
            (["response_mode": "form_post"], "invalid_request"),
            (["state": String(repeating: "s", count: 1_025)], "invalid_request"),
            (["claims": String(repeating: "c", count: 2_049)], "invalid_request"),
        ] as [([String: String?], String)])
    func aBadRequestIsRefusedWithItsError(_ changes: [String: String?], expected: String) {
        do {
            _ = try Self.read(changes)
            Issue.record("\(changes) was accepted")
        } catch {
            #expect(error.error == expected && error.redirectable, "\(changes)")
        }
    }

    @Test func repliesCarryStateAndIssuer() throws {
        let request = try Self.read(["state": "a b&c"])
        #expect(request.reply([("code", "xyz")]) == "com.example:/cb?code=xyz&state=a%20b%26c&iss=https%3A%2F%2Fid.example")
    }

    @Test func aSealedRequestOpensOnlyForItsClientUnchangedAndInTime() throws {
        let key = CodeKey.ephemeral()
        let request = try Self.read([:])
        let sealed = request.sealed(with: key)
        #expect(AuthorizationRequest.opened(sealed, key: key, clientID: "app", now: Self.now + 60) == request)
        #expect(AuthorizationRequest.opened(sealed, key: key, clientID: "other", now: Self.now) == nil)
        #expect(AuthorizationRequest.opened(sealed, key: .ephemeral(), clientID: "app", now: Self.now) == nil)
        #expect(AuthorizationRequest.opened(sealed, key: key, clientID: "app", now: Self.now + 31 * 60) == nil)
        var bytes = Array(sealed.utf8)
        bytes[bytes.count / 2] = bytes[bytes.count / 2] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        #expect(
            AuthorizationRequest.opened(String(decoding: bytes, as: UTF8.self), key: key, clientID: "app", now: Self.now) == nil)
        let session = BrowserSession(
            id: "s", userID: "u", authTime: Self.now, methods: ["pwd"], acr: nil, expiresAt: Self.now + 60)
        #expect(
            BrowserSession.opened(request.sealed(with: key), key: key, now: Self.now) == nil,
            "a request never opens as a session")
        #expect(BrowserSession.opened(session.sealed(with: key), key: key, now: Self.now) == session)
        #expect(BrowserSession.opened(session.sealed(with: key), key: key, now: Self.now + 61) == nil)
    }
}
