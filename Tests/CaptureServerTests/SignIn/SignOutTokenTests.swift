import CaptureCore
import CaptureTestSupport
import Foundation
import Testing

/// The sign-out token a code-mode sign-in or registration hands the page (docs/adr/
/// 0012-sign-out-token.md): stored hashed, in the code's chain, good for `/oauth/revoke` of that chain and nothing else.
@Suite struct SignOutTokenTests {
    typealias Codes = AuthorizationCodeTests

    /// Signs `email` in with `response_type=code`; returns the reply's code and sign-out token.
    static func codeSignIn(
        _ api: API, _ email: String, refreshSecret: String? = nil
    ) async throws -> (code: String, signOut: String) {
        var fields = Codes.signIn(email)
        if let refreshSecret { fields["refresh_secret"] = refreshSecret }
        let reply = try await api.post("/oauth/auth_native_traditional", fields)
        #expect(reply.stat == "ok")
        return (try #require(reply["authorization_code"] as? String), try #require(reply["sign_out_token"] as? String))
    }

    static func exchange(_ api: API, _ code: String) async throws -> (access: String, refresh: String) {
        let tokens = try await api.post("/oauth/token", Codes.exchange(code))
        #expect(tokens.stat == "ok")
        return (try #require(tokens["access_token"] as? String), try #require(tokens["refresh_token"] as? String))
    }

    static func revoke(_ token: String, client: String = "demo-mobile-app") -> [String: String] {
        ["token": token, "token_type_hint": "access_token", "client_id": client]
    }

    static func refreshGrant(_ token: String) -> [String: String] {
        ["grant_type": "refresh_token", "refresh_token": token, "client_id": "demo-mobile-app"]
    }

    @Test func aCodeSignInsSignOutTokenRevokesTheTokensItsCodeWasExchangedFor() async throws {
        try await withAPI { api, world in
            try await world.register("out@example.com")
            let (code, signOut) = try await Self.codeSignIn(api, "out@example.com")
            #expect(signOut != code)
            let stored =
                try await world.service.store.tokens.list(TokenFilter(kind: .code))
                + world.service.store.tokens.list(TokenFilter(kind: .signOut))
            #expect(stored.map(\.hash) == [TokenMinter.key(code), TokenMinter.key(signOut)], "keys only")
            let chains = Array(Set(stored.map(\.chainID)))
            #expect(chains.count == 1, "one chain")

            let (access, refresh) = try await Self.exchange(api, code)
            #expect(try await api.post("/entity", ["access_token": access]).stat == "ok")
            let revoked = try await api.post("/oauth/revoke", Self.revoke(signOut))
            #expect(revoked.status == .ok)

            let entity = try await api.post("/entity", ["access_token": access])
            #expect(entity.code == 200 && entity["error"] as? String == "invalid_access_token")
            let refreshed = try await api.post("/oauth/token", Self.refreshGrant(refresh))
            #expect(refreshed.status == .badRequest && refreshed["error"] as? String == "invalid_grant")
            #expect(try await api.post("/oauth/revoke", Self.revoke(signOut)).status == .ok, "revoking twice is fine")
        }
    }

    @Test func signingOutBeforeTheExchangeKillsTheCodeAndRefreshedTokensFollowTheChain() async throws {
        try await withAPI { api, world in
            try await world.register("early@example.com")
            let (code, signOut) = try await Self.codeSignIn(api, "early@example.com")
            #expect(try await api.post("/oauth/revoke", Self.revoke(signOut)).status == .ok)
            let late = try await api.post("/oauth/token", Codes.exchange(code))
            #expect(late["error"] as? String == "invalid_grant")

            // Tokens from a refresh are in the same chain: the sign-out token still reaches them.
            let (secondCode, secondSignOut) = try await Self.codeSignIn(api, "early@example.com")
            let (_, refresh) = try await Self.exchange(api, secondCode)
            let rotated = try await api.post("/oauth/token", Self.refreshGrant(refresh))
            let rotatedAccess = try #require(rotated["access_token"] as? String)
            #expect(try await api.post("/oauth/revoke", Self.revoke(secondSignOut)).status == .ok)
            #expect(try await api.post("/entity", ["access_token": rotatedAccess])["error"] as? String == "invalid_access_token")
        }
    }

    @Test func registrationInCodeModeHandsOneAndTokenModeHandsNone() async throws {
        try await withAPI { api, world in
            var fields = TestWorld.registration(email: "newcode@example.com")
            for (key, value) in Codes.signIn("x@example.com")
            where ["response_type", "redirect_uri", "code_challenge", "code_challenge_method"].contains(key) {
                fields[key] = value
            }
            let registered = try await api.post("/oauth/register_native_traditional", fields)
            #expect(registered.stat == "ok")
            #expect(registered["sign_out_token"] is String)
            #expect(registered["authorization_code"] is String)

            let tokenMode = try await api.post(
                "/oauth/auth_native_traditional",
                TestWorld.signIn(email: "newcode@example.com", password: "correct horse battery"))
            #expect(tokenMode["access_token"] is String)
            #expect(tokenMode["sign_out_token"] == nil, "a page that holds the access token signs out with it")
            let both = try await api.post(
                "/oauth/auth_native_traditional", Codes.signIn("newcode@example.com", responseType: "code_and_token"))
            #expect(both["sign_out_token"] is String)
        }
    }

    @Test func theSignOutTokenAuthorizesNothingElse() async throws {
        try await withAPI { api, world in
            try await world.register("nothing@example.com")
            let (code, signOut) = try await Self.codeSignIn(api, "nothing@example.com")

            let entity = try await api.post("/entity", ["access_token": signOut])
            #expect(entity.status == .ok && entity["error"] as? String == "invalid_access_token")
            var profile = TestWorld.flowParameters(form: "editProfileForm")
            profile["access_token"] = signOut
            profile["displayName"] = "Mallory"
            #expect(try await api.post("/oauth/update_profile_native", profile)["error"] as? String == "invalid_access_token")
            let verified = try await api.post("/verify", ["assertion": signOut, "audience": "http://127.0.0.1:8080"])
            #expect(verified["status"] as? String == "failure")
            #expect(try await api.post("/oauth/token", Self.refreshGrant(signOut))["error"] as? String == "invalid_grant")
            let asCode = try await api.post("/oauth/token", Codes.exchange(signOut))
            #expect(asCode["error"] as? String == "invalid_grant")
            let date = SignedRefreshTests.date(world.time.now())
            let signed = try await api.post(
                "/oauth/refresh_access_token", SignedRefreshTests.refresh(signOut, at: date))
            #expect(signed["error"] as? String == "invalid_access_token")

            let (_, secret) = try await world.service.clientAdmin.addClient(
                id: "introspecting-backend", name: nil, confidential: true, redirectURIs: [], allowedOrigins: [],
                responseTypes: ["token"], legacyTokenURL: false)
            let introspected = try await api.post(
                "/oauth/introspect",
                ["token": signOut, "client_id": "introspecting-backend", "client_secret": try #require(secret)])
            #expect(introspected.json.count == 1 && introspected["active"] as? Bool == false)

            // None of those attempts harmed the sign-in: its code still works.
            let (access, _) = try await Self.exchange(api, code)
            #expect(try await api.post("/entity", ["access_token": access]).stat == "ok")
        }
    }

    @Test func aWrongOrForeignSignOutTokenRevokesNothingAndNeverFails() async throws {
        try await withAPI { api, world in
            try await world.register("kept@example.com")
            let (code, signOut) = try await Self.codeSignIn(api, "kept@example.com")
            let (access, _) = try await Self.exchange(api, code)

            var wrong = Array(signOut)
            wrong[0] = wrong[0] == "A" ? "B" : "A"
            for token in [String(wrong), String(signOut.dropLast()), signOut + "x", String(repeating: "é", count: 3000), "%00"] {
                let reply = try await api.post("/oauth/revoke", Self.revoke(token))
                #expect(reply.status == .ok, "RFC 7009: an unknown token is not an error")
            }
            let empty = try await api.post("/oauth/revoke", Self.revoke(""))
            #expect(empty.status == .badRequest && empty["error"] as? String == "invalid_request")

            let (_, secret) = try await world.service.clientAdmin.addClient(
                id: "other-app", name: nil, confidential: true, redirectURIs: [], allowedOrigins: [], responseTypes: ["token"],
                legacyTokenURL: false)
            var foreign = Self.revoke(signOut, client: "other-app")
            foreign["client_secret"] = try #require(secret)
            #expect(try await api.post("/oauth/revoke", foreign).status == .ok)

            #expect(try await api.post("/entity", ["access_token": access]).stat == "ok", "nothing was revoked")
        }
    }

    @Test func aRefreshSecretSentWithACodeSignInCarriesOverToTheExchangedTokens() async throws {
        try await withAPI { api, world in
            try await world.register("secret@example.com")
            let (code, _) = try await Self.codeSignIn(api, "secret@example.com", refreshSecret: SignedRefreshTests.secret)
            let (access, _) = try await Self.exchange(api, code)
            world.time.advance(by: 3700)
            let date = SignedRefreshTests.date(world.time.now())
            let reply = try await api.post("/oauth/refresh_access_token", SignedRefreshTests.refresh(access, at: date))
            #expect(reply.stat == "ok")
            let fresh = try #require(reply["access_token"] as? String)
            #expect(try await api.post("/entity", ["access_token": fresh]).stat == "ok")
        }
    }
}
