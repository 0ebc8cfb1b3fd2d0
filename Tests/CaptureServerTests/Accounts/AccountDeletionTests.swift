import CaptureCore
import CaptureTestSupport
import Foundation
import Testing

/// Issue 31: a person deletes their account (deactivated at once, erased after the grace period) and may bring it
/// back by signing in with `reactivate=true` before then; nothing of them outlives the erasure but pseudonymous
/// audit rows.
@Suite struct AccountDeletionTests {
    static let password = "correct horse battery"

    static func deletion(_ token: String, password: String?) -> [String: String] {
        var fields = TestWorld.flowParameters(form: "deactivateAccountForm", flow: "webViewProfile")
        fields["access_token"] = token
        if let password { fields["currentPassword"] = password }
        return fields
    }

    static func reactivation(_ email: String, password: String = password) -> [String: String] {
        var fields = TestWorld.signIn(email: email, password: password)
        fields["reactivate"] = "true"
        return fields
    }

    @Test func theOwnersPasswordDeletesTheAccountAndASignInWithReactivateBringsItBack() async throws {
        try await withAPI { api, world in
            let grant = try #require(try await world.register("leaving@example.com").grant)
            let wrong = try await api.post("/oauth/deactivate_account", Self.deletion(grant.accessToken, password: "guess"))
            #expect(wrong.code == 390 && (wrong.json["invalid_fields"] as? [String: Any])?["currentPassword"] != nil)
            let missing = try await api.post("/oauth/deactivate_account", Self.deletion(grant.accessToken, password: nil))
            #expect(missing.code == 390, "\(missing.json)")
            #expect(try await api.post("/entity", ["access_token": grant.accessToken]).stat == "ok")

            let deleted = try await api.post(
                "/oauth/deactivate_account", Self.deletion(grant.accessToken, password: Self.password))
            let erasure = world.service.time.now().addingTimeInterval(30 * 86400)
            #expect(deleted.stat == "ok" && deleted.json["erase_at"] as? String == CaptureDate.format(erasure))
            #expect(try await api.post("/entity", ["access_token": grant.accessToken]).stat == "error")
            let notice = try await world.service.store.outbox.list(limit: 10).first { $0.kind == .accountDeleted }
            #expect(notice?.recipient == "leaving@example.com" && notice?.userID == nil)
            #expect(notice?.text?.contains(CaptureDate.day(erasure)) == true)

            // The right password is told the account can come back; a wrong one learns nothing new.
            let refused = try await api.post(
                "/oauth/auth_native_traditional", TestWorld.signIn(email: "leaving@example.com", password: Self.password))
            #expect(refused.code == 403 && refused.json["error"] as? String == "account_deactivated")
            #expect(refused.json["reactivate_until"] as? String == CaptureDate.format(erasure))
            let guessed = try await api.post(
                "/oauth/auth_native_traditional", Self.reactivation("leaving@example.com", password: "guess"))
            #expect(guessed.code == 210 && guessed.json["reactivate_until"] == nil)

            world.time.advance(by: 29 * 86400)
            let back = try await api.post("/oauth/auth_native_traditional", Self.reactivation("leaving@example.com"))
            let token = try #require(back.json["access_token"] as? String, "\(back.json)")
            #expect(try await api.post("/entity", ["access_token": token]).stat == "ok")
            let user = try await world.service.admin.findUser("leaving@example.com")
            #expect(!user.isDisabled && user.deleteRequestedAt == nil)
            #expect(try await world.service.housekeeping.purgeExpired()["accounts_erased"] == 0)
            // The wrong guess is a row of its own (`signin.failed`, the webhooks' signInFailed).
            let actions = try await world.service.audit.auditLog(AuditFilter(target: user.id)).map(\.action)
            #expect(actions.filter { $0 != "signin.failed" }.prefix(2) == ["account.reactivated", "account.deleted"])
            #expect(actions.contains("signin.failed"))
        }
    }

    @Test func pastTheGracePeriodTheAccountIsErasedAndOnlyPseudonymousAuditRowsRemain() async throws {
        try await withAPI { api, world in
            let auth = try await world.register("erased@example.com")
            let grant = try #require(auth.grant)
            let store = world.service.store
            _ = try await api.post(
                "/oauth/forgot_password_native",
                AccountRecoveryTests.flow("forgotPasswordForm", ["signInEmailAddress": "erased@example.com"]))
            try await store.secondFactors.save(
                SecondFactor(userID: auth.user.id, sealedSecret: "sealed", recoveryHashes: ["h"], createdAt: world.time.now()))
            #expect(
                try await api.post("/oauth/deactivate_account", Self.deletion(grant.accessToken, password: Self.password)).stat
                    == "ok")
            _ = try await world.service.audit.audited("user.show", target: "Erased@Example.com", by: .service) { 0 }

            world.time.advance(by: 30 * 86400 + 1)
            // Past the grace period and not yet erased: refused with no way back.
            let late = try await api.post("/oauth/auth_native_traditional", Self.reactivation("erased@example.com"))
            #expect(late.code == 403 && late.json["reactivate_until"] == nil, "\(late.json)")
            #expect(try await world.service.housekeeping.purgeExpired()["accounts_erased"] == 1)

            #expect(try await store.users.find(id: auth.user.id) == nil)
            #expect(try await store.secondFactors.find(userID: auth.user.id) == nil)
            #expect(try await store.tokens.list(TokenFilter(userID: auth.user.id)).isEmpty)
            let messages = try await store.outbox.list(limit: 50)
            // The deletion notice (given up undelivered here: no relay) went with the erasure, as every message to the
            // address that no longer waits does.
            #expect(messages.allSatisfy { $0.userID != auth.user.id && $0.recipient != "erased@example.com" })
            #expect(messages.isEmpty, "\(messages.map(\.kind))")
            let audit = try await world.service.audit.auditLog(AuditFilter(page: Page(limit: 100)))
            #expect(!audit.isEmpty)
            #expect(audit.allSatisfy { $0.target != auth.user.id && $0.target.lowercased() != "erased@example.com" })
            let pseudonymous = audit.filter { $0.target.hasPrefix("erased:") }
            #expect(Set(pseudonymous.map(\.target)).count == 1 && pseudonymous.allSatisfy { $0.detail == nil })
            #expect(Set(pseudonymous.map(\.action)).isSuperset(of: ["account.deleted", "account.erased", "user.show"]))
            let gone = try await api.post("/oauth/auth_native_traditional", Self.reactivation("erased@example.com"))
            #expect(gone.code == 210)
        }
    }

    @Test func withNoGracePeriodTheAccountIsErasedAtOnce() async throws {
        try await withAPI(configure: { $0.erasureGraceDays = 0 }) { api, world in
            let auth = try await world.register("now@example.com")
            let deleted = try await api.post(
                "/oauth/deactivate_account", Self.deletion(try #require(auth.grant).accessToken, password: Self.password))
            #expect(deleted.json["erase_at"] as? String == CaptureDate.format(world.service.time.now()))
            #expect(try await world.service.store.users.find(id: auth.user.id) == nil)
            // The notice is not the account's: it is still delivered.
            #expect(try await world.service.store.outbox.list(limit: 10).map(\.kind) == [.accountDeleted])
        }
    }

    @Test func anOperatorDisabledAccountIsNotReactivatedByItsOwner() async throws {
        try await withAPI { api, world in
            _ = try await world.register("locked@example.com")
            _ = try await world.service.admin.setDisabled("locked@example.com", disabled: true)
            let reply = try await api.post("/oauth/auth_native_traditional", Self.reactivation("locked@example.com"))
            #expect(reply.code == 403 && reply.json["reactivate_until"] == nil)
            #expect(try await world.service.admin.findUser("locked@example.com").isDisabled)
        }
    }

    /// Without a password, the proof is a recent sign-in: a token older than ten minutes is refused.
    @Test func anAccountWithoutAPasswordNeedsARecentSignIn() async throws {
        try await withAPI { api, world in
            var stale = try await world.register("stale@example.com")
            stale.user.passwordHash = nil
            try await world.service.store.users.update(stale.user)
            world.time.advance(by: 11 * 60)
            var fresh = try await world.register("fresh@example.com")
            fresh.user.passwordHash = nil
            try await world.service.store.users.update(fresh.user)
            let refused = try await api.post(
                "/oauth/deactivate_account", Self.deletion(try #require(stale.grant).accessToken, password: nil))
            #expect(refused.code == 403 && refused.json["error"] as? String == "recent_sign_in_required", "\(refused.json)")
            let deleted = try await api.post(
                "/oauth/deactivate_account", Self.deletion(try #require(fresh.grant).accessToken, password: nil))
            #expect(deleted.stat == "ok", "\(deleted.json)")
        }
    }
}
