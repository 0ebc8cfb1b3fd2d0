import CaptureCore
import CaptureTestSupport
import Foundation
import Testing

/// Issue 48, item 1 (SPEC §19): a session whose sign-in is older than `recentSignInMinutes`, as a stolen access
/// token or a session kept alive by refreshes is, cannot add or take away a way in, nor move or delete the account,
/// unless the request carries the current password (and, with a second factor on, one of its codes).
@Suite struct StepUpTests {
    static let password = "correct horse battery"

    /// An account with a password, its address proven, one passkey and one linked provider account; and an access
    /// token of a session whose sign-in is past the window, refreshed since (a refresh does not make it recent).
    struct Aged {
        var user: User
        var token: String
        var refreshToken: String
        var passkeyID: String
    }

    static func aged(_ api: API, _ world: TestWorld, _ email: String) async throws -> Aged {
        let registered = try await world.registerProven(email)
        let grant = try #require(registered.grant)
        let passkey = Passkey(
            credentialID: "cred-" + registered.user.id, userID: registered.user.id, name: "Phone", publicKey: [1],
            signCount: 0, backupEligible: true, backedUp: true, transports: ["internal"], createdAt: world.time.now())
        try await world.service.store.passkeys.insert(passkey)
        try await world.service.store.identities.link(
            LinkedIdentity(
                provider: "glewlwyd", subject: "sub-" + registered.user.id, userID: registered.user.id, email: email,
                vouched: true, linkedAt: world.time.now()))
        world.time.advance(by: world.service.settings.recentSignInMinutes * 60 + 1)
        let refreshed = try await api.post(
            "/oauth/token", ["grant_type": "refresh_token", "refresh_token": grant.refreshToken, "client_id": "demo-mobile-app"])
        let token = try #require(refreshed["access_token"] as? String, "\(refreshed.json)")
        return Aged(
            user: registered.user, token: token, refreshToken: try #require(refreshed["refresh_token"] as? String),
            passkeyID: passkey.credentialID)
    }

    /// Each sensitive change's call, as an SDK or the pages send it with the aged session's token.
    static func calls(_ aged: Aged) -> [(SensitiveChange, String, [String: String])] {
        let token = aged.token
        var profile = TestWorld.flowParameters(form: "editProfileForm", flow: "webViewProfile")
        profile.merge(["access_token": token, "emailAddress": "moved@attacker.example", "displayName": "Thief"]) { $1 }
        var deletion = TestWorld.flowParameters(form: "deactivateAccountForm", flow: "webViewProfile")
        deletion["access_token"] = token
        var link = TestWorld.flowParameters(form: "signInForm")
        link.merge(["access_token": token, "token": "a-provider-sign-in-the-thief-made"]) { $1 }
        return [
            (.addPasskey, "/passkey/registration_options", ["access_token": token]),
            (.removePasskey, "/passkey/remove", ["access_token": token, "passkey_id": aged.passkeyID]),
            (.setUpAuthenticator, "/second_factor/setup", ["access_token": token]),
            (.linkProvider, "/oauth/link_account_native", link),
            (
                .unlinkProvider, "/oauth/unlink_account_native",
                ["access_token": token, "identifier_to_remove": "glewlwyd:sub-" + aged.user.id]
            ),
            (.changeAddress, "/oauth/update_profile_native", profile),
            (.changeAddress, "/entity.update", ["access_token": token, "attributes": #"{"email":"moved@attacker.example"}"#]),
            (.deleteAccount, "/oauth/deactivate_account", deletion),
        ]
    }

    /// The documented refusal; its description is the catalog's, in the request's language (the audit row names the
    /// change).
    static func isStepUpRefusal(_ reply: Reply) -> Bool {
        reply.code == 403 && reply.json["error"] as? String == "recent_sign_in_required"
            && (reply.json["error_description"] as? String)?.contains("recent sign-in") == true
    }

    @Test func anAgedSessionIsRefusedEverySensitiveChangeAndNothingChanges() async throws {
        try await withAPI { api, world in
            let aged = try await Self.aged(api, world, "owner@corp.example")
            // (The deletion form of an account with a password asks for it, which stands in: see the tests below.)
            for (change, path, fields) in Self.calls(aged) where change != .deleteAccount {
                let reply = try await api.post(path, fields)
                #expect(Self.isStepUpRefusal(reply), "\(path): \(reply.json)")
            }
            let store = world.service.store
            let user = try #require(try await store.users.find(id: aged.user.id))
            #expect(user.email == "owner@corp.example" && !user.isDisabled)
            #expect(try await store.passkeys.list(userID: user.id).map(\.credentialID) == [aged.passkeyID])
            #expect(try await store.identities.list(userID: user.id).count == 1)
            #expect(try await store.secondFactors.find(userID: user.id) == nil)
            #expect(try await store.ceremonies.purge(expiredBefore: .distantFuture) == 0, "no ceremony was begun")
            let refusals = try await world.service.audit.auditLog(AuditFilter(action: "step_up.refused", target: user.id))
            #expect(refusals.count == 7 && refusals.allSatisfy { $0.outcome == "refused" })
            let named: Set<String> = Set(refusals.compactMap { $0.detail?.components(separatedBy: ":").first })
            let changes: [SensitiveChange] = Self.calls(aged).map(\.0).filter { $0 != .deleteAccount }
            #expect(named == Set(changes.map(\.described)), "the audit names each change")
        }
    }

    @Test func theCurrentPasswordInTheSameRequestStandsInForARecentSignIn() async throws {
        try await withAPI { api, world in
            let aged = try await Self.aged(api, world, "owner@corp.example")
            for (_, path, fields) in Self.calls(aged) where path != "/oauth/link_account_native" {
                var wrong = fields
                wrong[path == "/oauth/deactivate_account" ? "currentPassword" : "current_password"] = "a guess"
                let refused = try await api.post(path, wrong)
                #expect(refused.code == 390, "a wrong password is the field's error: \(path): \(refused.json)")
            }
            let store = world.service.store
            #expect(try await store.passkeys.list(userID: aged.user.id).count == 1)
            for (_, path, fields) in Self.calls(aged) where !["/oauth/link_account_native", "/entity.update"].contains(path) {
                var right = fields
                right[path == "/oauth/deactivate_account" ? "currentPassword" : "current_password"] = Self.password
                let reply = try await api.post(path, right)
                #expect(reply.stat == "ok", "\(path): \(reply.json)")
            }
            #expect(try await store.passkeys.list(userID: aged.user.id).isEmpty)
            #expect(try await store.identities.list(userID: aged.user.id).isEmpty)
            let user = try #require(try await store.users.find(id: aged.user.id))
            #expect(user.email == "moved@attacker.example" && user.deleteRequestedAt != nil)
        }
    }

    /// With a second factor on, the password alone is not enough from an aged session: a code of the factor too.
    @Test func withASecondFactorOnThePasswordNeedsACodeToo() async throws {
        try await withAPI { api, world in
            let registered = try await world.registerProven("guarded@corp.example")
            let fresh = try #require(registered.grant)
            let setup = try await api.post("/second_factor/setup", ["access_token": fresh.accessToken])
            let secret = try #require(FactorsAPITests.secret(setup.json["secret"] as? String))
            let codes = try await api.post(
                "/second_factor/confirm",
                [
                    "access_token": fresh.accessToken, "setup_ticket": try #require(setup.json["setup_ticket"] as? String),
                    "code": TOTP(secret: secret).code(step: TOTP.step(at: world.time.now())),
                ])
            let recovery = try #require(codes.json["recovery_codes"] as? [String])
            world.time.advance(by: world.service.settings.recentSignInMinutes * 60 + 31)
            let now = TOTP(secret: secret).code(step: TOTP.step(at: world.time.now()))

            var change = AccountRecoveryTests.flow(
                "changePasswordForm",
                [
                    "currentPassword": Self.password, "newPassword": "a new one entirely",
                    "newPasswordConfirm": "a new one entirely",
                ],
                flow: "webViewProfile")
            change["access_token"] = fresh.accessToken
            #expect(Self.isStepUpRefusal(try await api.post("/oauth/update_profile_native", change)))
            let options = ["access_token": fresh.accessToken, "current_password": Self.password]
            #expect(Self.isStepUpRefusal(try await api.post("/passkey/registration_options", options)))
            // Turning the app off takes its own code; from an aged session, the password with it.
            var deletion = AccountDeletionTests.deletion(fresh.accessToken, password: Self.password)
            #expect(Self.isStepUpRefusal(try await api.post("/oauth/deactivate_account", deletion)))
            let off = ["access_token": fresh.accessToken, "code": now]
            #expect(Self.isStepUpRefusal(try await api.post("/second_factor/disable", off)))

            var wrongCode = options
            wrongCode["second_factor_code"] = "000000" == now ? "111111" : "000000"
            #expect(try await api.post("/passkey/registration_options", wrongCode).code == 210)
            var withCode = options
            withCode["second_factor_code"] = recovery[0]
            let begun = try await api.post("/passkey/registration_options", withCode)
            #expect(begun.stat == "ok" && begun.json["options"] != nil, "\(begun.json)")
            change["second_factor_code"] = now
            #expect(try await api.post("/oauth/update_profile_native", change).stat == "ok")
            #expect(
                try await api.post(
                    "/second_factor/disable",
                    ["access_token": fresh.accessToken, "code": recovery[1], "current_password": "a new one entirely"]
                ).stat == "ok")
            #expect(try await world.service.store.secondFactors.find(userID: registered.user.id) == nil)
            deletion["currentPassword"] = "a new one entirely"
            #expect(try await api.post("/oauth/deactivate_account", deletion).stat == "ok", "no factor now: the password")
        }
    }

    /// A new sign-in makes the session recent again; refreshing the old one never does, however often, and when the
    /// tokens of its first hours are long purged.
    @Test func aNewSignInIsRecentAndRefreshesNeverAre() async throws {
        try await withAPI { api, world in
            let aged = try await Self.aged(api, world, "owner@corp.example")
            var refreshToken = aged.refreshToken
            for _ in 0..<3 {
                world.time.advance(by: 3 * 3600)
                _ = try await world.service.housekeeping.purgeExpired()
                let refreshed = try await api.post(
                    "/oauth/token",
                    ["grant_type": "refresh_token", "refresh_token": refreshToken, "client_id": "demo-mobile-app"])
                let token = try #require(refreshed["access_token"] as? String, "\(refreshed.json)")
                refreshToken = try #require(refreshed["refresh_token"] as? String)
                let refused = try await api.post("/passkey/registration_options", ["access_token": token])
                #expect(Self.isStepUpRefusal(refused), "\(refused.json)")
            }
            let signIn = try await api.post(
                "/oauth/auth_native_traditional", TestWorld.signIn(email: "owner@corp.example", password: Self.password))
            let fresh = try #require(signIn.json["access_token"] as? String)
            #expect(try await api.post("/passkey/registration_options", ["access_token": fresh]).stat == "ok")
            #expect(try await api.post("/second_factor/setup", ["access_token": fresh]).stat == "ok")
        }
    }
}
