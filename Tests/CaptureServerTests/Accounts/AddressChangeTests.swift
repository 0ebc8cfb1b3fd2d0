import CaptureCore
import CaptureTestSupport
import Foundation
import Testing

/// Issue 27, item 2: a stolen access token cannot move the account to another mailbox.
@Suite struct AddressChangeTests {
    static func profile(_ token: String, email: String) -> [String: String] {
        TestWorld.flowParameters(form: "editProfileForm", flow: "webViewProfile").merging([
            "access_token": token, "emailAddress": email, "displayName": "Mover",
        ]) { $1 }
    }

    @Test func aSessionWhoseSignInIsNotRecentCannotChangeTheAddress() async throws {
        try await withAPI { api, world in
            let registered = try await world.register("owner@corp.example")
            let grant = try #require(registered.grant)
            world.time.advance(by: world.service.settings.recentSignInMinutes * 60 + 1)
            // A refresh continues the session; it does not make it recent.
            let refreshed = try await api.post(
                "/oauth/token",
                ["grant_type": "refresh_token", "refresh_token": grant.refreshToken, "client_id": "demo-mobile-app"])
            let token = try #require(refreshed["access_token"] as? String)
            let form = try await api.post("/oauth/update_profile_native", Self.profile(token, email: "thief@attacker.example"))
            #expect(
                form.code == 403 && (form["error_description"] as? String)?.contains("recent sign-in") == true, "\(form.json)")
            let entity = try await api.post(
                "/entity.update", ["access_token": token, "attributes": #"{"email": "thief@attacker.example"}"#])
            #expect(entity.code == 403)
            #expect(try await world.service.store.users.find(email: "owner@corp.example") != nil, "the address stayed")
            // Other changes still go through.
            var rename = Self.profile(token, email: "owner@corp.example")
            rename["displayName"] = "Still Me"
            #expect(try await api.post("/oauth/update_profile_native", rename).stat == "ok")
        }
    }

    @Test func aRecentChangeEndsOtherSessionsMailsBothAddressesAndNeedsTheNewOneProven() async throws {
        try await withAPI { api, world in
            let registered = try await world.register("a@attacker.example")
            let (_, oldCode) = try await AccountRecoveryTests.mailed(world, to: "a@attacker.example")
            let other = try #require(
                try await api.post(
                    "/oauth/auth_native_traditional",
                    TestWorld.signIn(email: "a@attacker.example", password: "correct horse battery"))["access_token"] as? String)
            let token = try #require(registered.grant?.accessToken)
            let changed = try await api.post("/oauth/update_profile_native", Self.profile(token, email: "victim@corp.example"))
            #expect(changed.stat == "ok", "Janrain's reply: \(changed.json)")
            let user = try #require(try await world.service.store.users.find(email: "victim@corp.example"))
            #expect(user.emailVerifiedAt == nil)
            #expect(try await api.post("/entity", ["access_token": token]).stat == "ok", "the current session stays")
            #expect(try await api.post("/entity", ["access_token": other]).stat == "error", "every other one ends")
            // The code mailed to the old address proves nothing about the new one (the issue's sequence).
            let refused = try await api.post(
                "/access/useVerificationCode", ["verification_code": try #require(oldCode), "email": "victim@corp.example"])
            #expect(refused.code == 390)
            // The old address is told; the new one gets a code of its own, which proves it.
            let notice = try #require(try await world.service.admin.listMail().first { $0.kind == .emailChanged })
            #expect(notice.recipient == "a@attacker.example" && notice.text?.contains("victim@corp.example") == true)
            let (_, newCode) = try await AccountRecoveryTests.mailed(world, to: "victim@corp.example")
            #expect(
                try await api.post(
                    "/access/useVerificationCode", ["verification_code": try #require(newCode), "email": "victim@corp.example"]
                ).stat == "ok")
            let audit = try await world.service.audit.auditLog(AuditFilter(action: "user.email_change", target: user.id))
            #expect(audit.count == 1)
        }
    }

    /// The code in the link of the old address's notice (its fragment), nil when the notice has no way back.
    static func restoreCode(_ world: TestWorld, to email: String) async throws -> String? {
        let notice = try #require(
            try await world.service.admin.listMail().first { $0.kind == .emailChanged && $0.recipient == email })
        #expect(notice.html?.contains("{{") == false && notice.text?.contains("{{") == false, "every placeholder filled")
        return notice.text?.firstMatch(of: /#screen=resetPassword&code=([2-9A-HJ-NP-Z]{4}-[2-9A-HJ-NP-Z]{4})/).map {
            String($0.output.1)
        }
    }

    @Test func theOldAddressUndoesTheChangeEndsEverySessionAndChoosesTheNextPassword() async throws {
        try await withAPI { api, world in
            let registered = try await world.register("owner@corp.example")
            let token = try #require(registered.grant?.accessToken)
            // The thief moves the account twice: the first notice opens the way back, the second has none, so
            // the first address is the one a restore returns to.
            #expect(
                try await api.post("/oauth/update_profile_native", Self.profile(token, email: "thief@attacker.example")).stat
                    == "ok")
            #expect(
                try await api.post("/oauth/update_profile_native", Self.profile(token, email: "thief2@attacker.example")).stat
                    == "ok")
            let code = try #require(try await Self.restoreCode(world, to: "owner@corp.example"))
            #expect(try await Self.restoreCode(world, to: "thief@attacker.example") == nil)
            let user = try #require(try await world.service.store.users.find(email: "thief2@attacker.example"))
            // The code is bound to the old address: with another address, or wrong, it does nothing.
            let elsewhere = try await api.post(
                "/oauth/reset_password_native", AccountRecoveryTests.resetFields("thief@attacker.example", code: code))
            #expect(elsewhere.code == 390)
            let wrong = try await api.post(
                "/oauth/reset_password_native", AccountRecoveryTests.resetFields("owner@corp.example", code: "AAAA-AAAA"))
            #expect(wrong.code == 390)
            let undone = try await api.post(
                "/oauth/reset_password_native", AccountRecoveryTests.resetFields("owner@corp.example", code: code))
            #expect(undone.stat == "ok", "\(undone.json)")
            let restored = try #require(try await world.service.store.users.find(id: user.id))
            #expect(restored.email == "owner@corp.example" && restored.emailVerifiedAt != nil, "back, and proven by the link")
            #expect(try await api.post("/entity", ["access_token": token]).stat == "error", "the thief's session ended too")
            let old = try await api.post(
                "/oauth/auth_native_traditional", TestWorld.signIn(email: "owner@corp.example", password: "correct horse battery")
            )
            #expect(old.code == 210, "the password the thief may know is gone")
            let signIn = try await api.post(
                "/oauth/auth_native_traditional",
                TestWorld.signIn(email: "owner@corp.example", password: AccountRecoveryTests.newPassword))
            #expect(signIn.stat == "ok")
            let again = try await api.post(
                "/oauth/reset_password_native", AccountRecoveryTests.resetFields("owner@corp.example", code: code))
            #expect(again.code == 390, "the link works once")
            #expect(try await world.service.audit.auditLog(AuditFilter(action: "user.email_restore", target: user.id)).count == 1)
        }
    }

    @Test func theWayBackClosesAfterAddressRestoreHoursAndNeverTakesAnotherAccountsAddress() async throws {
        try await withAPI { api, world in
            let late = try await world.register("late@corp.example")
            #expect(
                try await api.post(
                    "/oauth/update_profile_native",
                    Self.profile(try #require(late.grant?.accessToken), email: "late2@attacker.example")
                ).stat == "ok")
            let lateCode = try #require(try await Self.restoreCode(world, to: "late@corp.example"))
            world.time.advance(by: world.service.settings.addressRestoreHours * 3600 + 1)
            let expired = try await api.post(
                "/oauth/reset_password_native", AccountRecoveryTests.resetFields("late@corp.example", code: lateCode))
            #expect(expired.code == 390)

            let owner = try await world.register("taken@corp.example")
            #expect(
                try await api.post(
                    "/oauth/update_profile_native",
                    Self.profile(try #require(owner.grant?.accessToken), email: "mover@attacker.example")
                ).stat == "ok")
            let code = try #require(try await Self.restoreCode(world, to: "taken@corp.example"))
            _ = try await world.register("taken@corp.example")
            let refused = try await api.post(
                "/oauth/reset_password_native", AccountRecoveryTests.resetFields("taken@corp.example", code: code))
            #expect(
                refused.code == 403 && (refused["error_description"] as? String)?.contains("another account") == true,
                "\(refused.json)")
            #expect(try await world.service.store.users.find(email: "mover@attacker.example") != nil, "nothing moved")
        }
    }

    @Test func theCurrentPasswordStandsInForARecentSignIn() async throws {
        try await withAPI { api, world in
            let registered = try await world.register("keeper@corp.example")
            let token = try #require(registered.grant?.accessToken)
            world.time.advance(by: world.service.settings.recentSignInMinutes * 60 + 1)
            var wrong = Self.profile(token, email: "keeper2@corp.example")
            wrong["currentPassword"] = "not the password"
            let refused = try await api.post("/oauth/update_profile_native", wrong)
            #expect(
                refused.code == 390 && (refused.json["invalid_fields"] as? [String: Any])?["currentPassword"] != nil,
                "\(refused.json)")
            #expect(try await world.service.store.users.find(email: "keeper@corp.example") != nil)
            var right = Self.profile(token, email: "keeper2@corp.example")
            right["currentPassword"] = "correct horse battery"
            #expect(try await api.post("/oauth/update_profile_native", right).stat == "ok")
            // entity.update takes it as current_password.
            let entity = try await api.post(
                "/entity.update",
                [
                    "access_token": token, "attributes": #"{"email": "keeper3@corp.example"}"#,
                    "current_password": "correct horse battery",
                ])
            #expect(entity.stat == "ok", "\(entity.json)")
            let guessed = try await api.post(
                "/entity.update",
                ["access_token": token, "attributes": #"{"email": "keeper4@corp.example"}"#, "current_password": "guess"])
            #expect(guessed.code == 390)
            #expect(try await world.service.store.users.find(email: "keeper3@corp.example") != nil)
        }
    }
}
