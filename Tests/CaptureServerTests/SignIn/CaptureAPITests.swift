import CaptureCore
import CaptureTestSupport
import Foundation
import Hummingbird
import Testing

@Suite struct CaptureAPITests {
    @Test func registrationReturnsTokensAndTheUser() async throws {
        try await withAPI { api, _ in
            let reply = try await api.post(
                "/oauth/register_native_traditional", TestWorld.registration(email: "New@Example.com"))
            #expect(reply.status == .ok)
            #expect(reply.stat == "ok")
            #expect((reply["access_token"] as? String)?.count == 44)
            #expect((reply["refresh_token"] as? String)?.count == 44)
            #expect(reply["expires_in"] as? Int == 3600)
            #expect(reply["token_type"] as? String == "Bearer")
            #expect(reply["is_new"] as? Bool == true)
            let user = try #require(reply["capture_user"] as? [String: Any])
            #expect(user["email"] as? String == "new@example.com")
            #expect(user["displayName"] as? String == "Tester")
            #expect(user["givenName"] as? String == "Tess")
            #expect((user["uuid"] as? String)?.count == 36)
            #expect(reply.headers[.cacheControl] == "no-store")
        }
    }

    @Test func invalidFieldsComeBackPerField() async throws {
        try await withAPI { api, world in
            var fields = TestWorld.registration(email: "bad-address")
            fields["newPasswordConfirm"] = "something else"
            let reply = try await api.post("/oauth/register_native_traditional", fields)
            #expect(reply.status == .ok, "Janrain answers application errors with HTTP 200")
            #expect(reply.stat == "error")
            #expect(reply.code == 390)
            #expect(reply["error"] as? String == "invalid_form_fields")
            let invalid = try #require(reply["invalid_fields"] as? [String: [String]])
            #expect(Set(invalid.keys) == ["emailAddress", "newPasswordConfirm"])
            let users = try await world.service.admin.listUsers()
            #expect(users.isEmpty, "nothing half-written")
        }
    }

    /// Issue 27: mail would go to the inner address, so the stored (and later verified) one would not be the mailbox
    /// that received the code.
    @Test func anAddressWithADisplayNameOrBracketsIsRefusedOnItsField() async throws {
        try await withAPI { api, world in
            for address in ["x<mallory@attacker.example>", "Mallory <mallory@attacker.example>", "a@example.com (me)"] {
                let reply = try await api.post("/oauth/register_native_traditional", TestWorld.registration(email: address))
                #expect(
                    reply.code == 390 && (reply["invalid_fields"] as? [String: [String]])?["emailAddress"] != nil, "\(address)")
            }
            #expect(try await world.service.admin.listUsers().isEmpty)
            #expect(try await world.service.admin.listMail().isEmpty, "no message to the inner address")
        }
    }

    /// Issue 27: a cheaper hash (imported, or from before the setting was raised) is made again at the configured cost
    /// when its owner signs in; a hash above the maximum cost is never run.
    @Test func aSignInRehashesACheaperHashAndNeverRunsAnOverpricedOne() async throws {
        try await withAPI(configure: { $0.bcryptCost = 5 }) { api, world in
            let result = try await world.register("rehash@example.com", password: "correct horse battery")
            var user = result.user
            user.passwordHash = await BcryptPasswordHasher(cost: 4).hash("correct horse battery")
            try await world.service.store.users.update(user)
            let signIn = TestWorld.signIn(email: "rehash@example.com", password: "correct horse battery")
            #expect(try await api.post("/oauth/auth_native_traditional", signIn).stat == "ok")
            let rehashed = try #require(try await world.service.store.users.find(email: "rehash@example.com")?.passwordHash)
            #expect(BcryptCost.of(rehashed) == 5)
            #expect(try await api.post("/oauth/auth_native_traditional", signIn).stat == "ok")

            user.passwordHash = "$2b$31$QREXRsttup3w2/Agwe.O9O0tEL9ERyQ9p5xgqGUr0MdSQO27DfUP."
            try await world.service.store.users.update(user)
            let started = ContinuousClock.now
            #expect(try await api.post("/oauth/auth_native_traditional", signIn).code == 210)
            // 2^31 rounds would take days: ending at all says they were not run.
            #expect(ContinuousClock.now - started < TestTiming.notForever, "refused without 2^31 rounds")
        }
    }

    /// Issue 52: an imported legacy hash (here MD5, as `$legacy$md5$…` stores it) signs its owner in, and the same
    /// update that records the sign-in replaces it with bcrypt at the configured cost; a wrong password is the ordinary
    /// 210 and leaves it as it was.
    @Test func aSignInWithALegacyHashRehashesItToBcrypt() async throws {
        try await withAPI(configure: { $0.bcryptCost = 5 }) { api, world in
            var user = try await world.register("legacy@example.com", password: "something else").user
            user.passwordHash = "$legacy$md5$$3cb4e732631f47e6eb961f34554b7cde"  // MD5("correct horse")
            try await world.service.store.users.update(user)
            let wrong = TestWorld.signIn(email: "legacy@example.com", password: "correct horsE")
            #expect(try await api.post("/oauth/auth_native_traditional", wrong).code == 210)
            #expect(try await world.service.store.users.find(email: "legacy@example.com")?.passwordHash == user.passwordHash)

            let right = TestWorld.signIn(email: "legacy@example.com", password: "correct horse")
            #expect(try await api.post("/oauth/auth_native_traditional", right).stat == "ok")
            let stored = try #require(try await world.service.store.users.find(email: "legacy@example.com"))
            #expect(BcryptCost.of(stored.passwordHash ?? "") == 5 && stored.lastLoginAt != nil)
            #expect(StoredPasswordHash.format(of: stored.passwordHash) == .bcrypt)
            #expect(try await api.post("/oauth/auth_native_traditional", right).stat == "ok")
            #expect(try await api.post("/oauth/auth_native_traditional", wrong).code == 210)
        }
    }

    @Test func aTakenAddressIs380OnTheField() async throws {
        try await withAPI { api, world in
            try await world.register("taken@example.com")
            let reply = try await api.post(
                "/oauth/register_native_traditional", TestWorld.registration(email: "TAKEN@example.com"))
            #expect(reply.code == 380)
            #expect(reply["error"] as? String == "email_address_in_use")
            #expect((reply["invalid_fields"] as? [String: [String]])?["emailAddress"] != nil)
        }
    }

    @Test func signInFailureIsTheSameForUnknownAddressAndWrongPassword() async throws {
        try await withAPI { api, world in
            try await world.register("known@example.com")
            let wrong = try await api.post(
                "/oauth/auth_native_traditional", TestWorld.signIn(email: "known@example.com", password: "not it at all"))
            let unknown = try await api.post(
                "/oauth/auth_native_traditional", TestWorld.signIn(email: "nobody@example.com", password: "not it at all"))
            #expect(wrong.code == 210)
            #expect(wrong.text == unknown.text)
            #expect(wrong.status == unknown.status)
            let ok = try await api.post(
                "/oauth/auth_native_traditional", TestWorld.signIn(email: "known@example.com", password: "correct horse battery"))
            #expect(ok.stat == "ok")
            #expect(ok["is_new"] as? Bool == false)
        }
    }

    @Test func signInIsRateLimited() async throws {
        try await withAPI(configure: { $0.signInMaxFailures = 2 }) { api, world in
            try await world.register("slow@example.com")
            for _ in 0..<2 {
                _ = try await api.post(
                    "/oauth/auth_native_traditional", TestWorld.signIn(email: "slow@example.com", password: "nope nope"))
            }
            let blocked = try await api.post(
                "/oauth/auth_native_traditional", TestWorld.signIn(email: "slow@example.com", password: "correct horse battery"))
            #expect(blocked.code == 510)
            #expect(blocked.status == .ok)
        }
    }

    @Test func missingAndUnknownArgumentsAreNamed() async throws {
        try await withAPI { api, _ in
            var fields = TestWorld.signIn(email: "a@b.co", password: "x")
            fields["client_id"] = nil
            let missing = try await api.post("/oauth/auth_native_traditional", fields)
            #expect(missing.code == 100)
            #expect(missing["argument"] as? String == "client_id")

            fields["client_id"] = "no-such-client"
            let unknownClient = try await api.post("/oauth/auth_native_traditional", fields)
            #expect(unknownClient.code == 402)

            fields["client_id"] = "demo-mobile-app"
            fields["role"] = "admin"
            let unknownField = try await api.post("/oauth/auth_native_traditional", fields)
            #expect(unknownField.code == 200)
            #expect(unknownField["argument"] as? String == "role")
        }
    }

    @Test func redirectURIMustBeOnTheAllowList() async throws {
        try await withAPI { api, world in
            try await world.register("r@example.com")
            var fields = TestWorld.signIn(email: "r@example.com", password: "correct horse battery")
            fields["redirect_uri"] = "https://evil.example/flows/webViewSignIn"
            let refused = try await api.post("/oauth/auth_native_traditional", fields)
            #expect(refused.code == 420)
            #expect(refused["supplied_value"] as? String == "https://evil.example/flows/webViewSignIn")
            #expect(refused["expected_value"] as? String == "http://127.0.0.1:8080/flows/webViewSignIn")
            fields["redirect_uri"] = "http://127.0.0.1:8080/flows/webViewSignIn?client_id=demo-mobile-app"
            #expect(try await api.post("/oauth/auth_native_traditional", fields).stat == "ok")
            // The values unmodified Janrain SDKs send: jump.ios the Capture origin, jump.android a fixed URL.
            for sdkDefault in ["http://127.0.0.1:8080", "http://android.library"] {
                fields["redirect_uri"] = sdkDefault
                #expect(try await api.post("/oauth/auth_native_traditional", fields).stat == "ok")
            }
        }
    }

    @Test func entityAndEntityUpdate() async throws {
        try await withAPI { api, world in
            let token = try await world.register("entity@example.com").grant!.accessToken
            let entity = try await api.post("/entity", ["access_token": token])
            #expect((entity["result"] as? [String: Any])?["email"] as? String == "entity@example.com")
            let viaHeader = try await api.post("/entity", [:], headers: [.authorization: "Bearer \(token)"])
            #expect(viaHeader.stat == "ok")
            let one = try await api.post("/entity", ["access_token": token, "attribute_name": "/email"])
            #expect(one["result"] as? String == "entity@example.com")
            let missing = try await api.post("/entity", ["access_token": token, "attribute_name": "shoeSize"])
            #expect(missing.code == 223 && missing["error"] as? String == "unknown_attribute")
            #expect(missing["attribute_name"] as? String == "shoeSize")

            let update = try await api.post(
                "/entity.update", ["access_token": token, "attributes": #"{"displayName":"Renamed","phone":"+1 555 0100"}"#])
            #expect((update["result"] as? [String: Any])?["displayName"] as? String == "Renamed")
            let bad = try await api.post("/entity.update", ["access_token": token, "attributes": "[1,2]"])
            #expect(bad.code == 200)
            let invalid = try await api.post(
                "/entity.update", ["access_token": token, "attributes": #"{"birthday":"tomorrow"}"#])
            #expect(invalid.code == 342 && invalid["error"] as? String == "invalid_date_time")
        }
    }

    @Test func recordDatesReadTheSameBeforeAndAfterStorage() async throws {
        try await withAPI { api, world in
            world.time.advance(by: 0.123_456_7)
            let registered = try await api.post(
                "/oauth/register_native_traditional", TestWorld.registration(email: "dates@example.com"))
            let before = try #require(registered["capture_user"] as? [String: Any])
            let token = try #require(registered["access_token"] as? String)
            let after = try #require(try await api.post("/entity", ["access_token": token])["result"] as? [String: Any])
            #expect(before["created"] as? String == "2027-01-15 08:00:00.123000 +0000")
            for key in ["created", "lastUpdated", "lastLogin"] { #expect(before[key] as? String == after[key] as? String) }
        }
    }

    @Test func tokenProblemsHaveTheirCodes() async throws {
        try await withAPI { api, world in
            #expect(try await api.post("/entity", [:]).code == 100)
            let unknown = try await api.post("/entity", ["access_token": "made-up"])
            #expect(unknown.code == 200)
            #expect(unknown["error"] as? String == "invalid_access_token")
            let token = try await world.register("old@example.com").grant!.accessToken
            world.time.advance(by: 3601)
            let expired = try await api.post("/entity", ["access_token": token])
            #expect(expired.code == 414)
            #expect(expired["error"] as? String == "access_token_expired")
        }
    }

    @Test func updateProfileNativeUsesTheEditProfileForm() async throws {
        try await withAPI { api, world in
            let token = try await world.register("profile@example.com").grant!.accessToken
            var fields = TestWorld.flowParameters(form: "editProfileForm", flow: "webViewProfile")
            fields.merge([
                "access_token": token, "displayName": "Pro", "firstName": "P", "lastName": "F",
                "emailAddress": "profile@example.com", "birthdate": "1990-01-31", "phone": "",
            ]) { _, new in new }
            let reply = try await api.post("/oauth/update_profile_native", fields)
            #expect(reply.stat == "ok")
            #expect(try await world.service.profile.entity(accessToken: token).birthday == "1990-01-31")
            // A page that asks for codes (a customer's `responseType: 'code'`) saves without PKCE: a save issues no code.
            fields.merge(["response_type": "code", "displayName": "Pro Code"]) { _, new in new }
            let coded = try await api.post("/oauth/update_profile_native", fields)
            #expect(coded.stat == "ok")
            #expect(try await world.service.profile.entity(accessToken: token).displayName == "Pro Code")
        }
    }
}
