import CaptureCore
import CaptureTestSupport
import Foundation
import Testing

/// Forgot/reset password, email verification and change password through the Capture API, with the codes read
/// from the outbox the messages were recorded in (the SMTP path has its own tests).
@Suite struct AccountRecoveryTests {
    static let password = "the first passphrase"
    static let newPassword = "a brand new passphrase"

    static func flow(_ form: String, _ fields: [String: String], flow: String = "webViewSignIn") -> [String: String] {
        TestWorld.flowParameters(form: form, flow: flow).merging(fields) { _, new in new }
    }

    /// The newest outbox entry for `email`, and the code its text carries.
    static func mailed(_ world: TestWorld, to email: String) async throws -> (OutboxEntry, String?) {
        let entry = try #require(try await world.service.admin.listMail().first { $0.recipient == email })
        let code = entry.text.flatMap { text in
            text.firstMatch(of: /[2-9A-HJ-NP-Z]{4}-[2-9A-HJ-NP-Z]{4}/).map { String($0.output) }
        }
        return (entry, code)
    }

    /// The code the newest message to `email` carries in its link (the short code and its tag).
    static func linkCode(_ world: TestWorld, to email: String) async throws -> String? {
        let entry = try #require(try await world.service.admin.listMail().first { $0.recipient == email })
        return entry.text?.firstMatch(of: /code=([2-9A-HJ-NP-Z]{4}-[2-9A-HJ-NP-Z]{4}-[2-9A-HJ-NP-Z]{26})&/).map {
            String($0.output.1)
        }
    }

    static func resetFields(_ email: String, code: String, password: String = newPassword) -> [String: String] {
        flow(
            "resetPasswordForm",
            [
                "verification_code": code, "email": email, "newPassword": password, "newPasswordConfirm": password,
            ])
    }

    @Test func forgotPasswordAnswersAlikeForKnownAndUnknownAddresses() async throws {
        try await withAPI { api, world in
            try await world.register("known@example.com", password: Self.password)
            let known = try await api.post(
                "/oauth/forgot_password_native", Self.flow("forgotPasswordForm", ["signInEmailAddress": "known@example.com"]))
            let unknown = try await api.post(
                "/oauth/forgot_password_native", Self.flow("forgotPasswordForm", ["signInEmailAddress": "nobody@example.com"]))
            #expect(known.status == .ok && known.text == #"{"stat":"ok"}"#)
            #expect(unknown.status == known.status && unknown.text == known.text)

            let (sent, code) = try await Self.mailed(world, to: "known@example.com")
            #expect(sent.status == .pending && sent.kind == .passwordReset)
            let link = try #require(sent.text?.split(separator: "\n").first { $0.contains("/flows/webViewSignIn?") })
            #expect(
                link.contains("#screen=resetPassword&code=\(code!)-") && link.hasSuffix("&email=known@example.com"),
                "code and address only in the fragment")
            // The link's code is the typed one and a tag of 26 characters (130 bits) that no guess makes.
            #expect(try await Self.linkCode(world, to: "known@example.com")?.count == 9 + 1 + CodeGuessing.tagLength)
            #expect(sent.html?.contains(code!) == true)
            let (suppressed, none) = try await Self.mailed(world, to: "nobody@example.com")
            #expect(suppressed.status == .suppressed && suppressed.text == nil && none == nil)
            // The database holds the code's hash, never the code.
            let user = try #require(try await world.service.store.users.find(email: "known@example.com"))
            var stored: [String] = []
            for purpose in CodePurpose.allCases {
                let hash = try await world.service.store.codes.use(userID: user.id, purpose: purpose) { (nil, $0?.hash) }
                stored += hash.map { [$0] } ?? []
            }
            #expect(stored.count == 2, "the registration's verification code and the reset code")
            #expect(!stored.contains { $0.contains(code!) })
        }
    }

    @Test func theMailedCodeResetsThePasswordEndsEverySessionAndVerifiesTheAddress() async throws {
        try await withAPI { api, world in
            let grant = try #require(try await world.register("reset@example.com", password: Self.password).grant)
            _ = try await api.post(
                "/oauth/forgot_password_native", Self.flow("forgotPasswordForm", ["signInEmailAddress": "reset@example.com"]))
            let (_, code) = try await Self.mailed(world, to: "reset@example.com")
            let reset = try await api.post(
                "/oauth/reset_password_native", Self.resetFields("Reset@Example.com", code: code!.lowercased()))
            #expect(reset.stat == "ok", "\(reset.json)")
            #expect(
                try await api.post("/entity", ["access_token": grant.accessToken]).json["error"] as? String
                    == "invalid_access_token")
            let old = try await api.post(
                "/oauth/auth_native_traditional", TestWorld.signIn(email: "reset@example.com", password: Self.password))
            #expect(old.code == 210)
            let new = try await api.post(
                "/oauth/auth_native_traditional", TestWorld.signIn(email: "reset@example.com", password: Self.newPassword))
            #expect(new.stat == "ok")
            let user = try #require(new.json["capture_user"] as? [String: Any])
            #expect(user["emailVerified"] is String, "the code proved the mailbox")
        }
    }

    /// What wrong entries cost (the requester, not the code) is CodeBurningTests'.
    @Test func aCodeWorksOnceForItsPurposeUntilItExpires() async throws {
        try await withAPI { api, world in
            try await world.register("once@example.com", password: Self.password)
            let ask = Self.flow("forgotPasswordForm", ["signInEmailAddress": "once@example.com"])
            _ = try await api.post("/oauth/forgot_password_native", ask)
            var (_, code) = try await Self.mailed(world, to: "once@example.com")
            // The verification code from registration is not a reset code, and vice versa.
            let verification = try #require(try await world.service.admin.listMail().last { $0.kind == .emailVerification })
            let verificationCode = String(verification.text!.firstMatch(of: /[2-9A-HJ-NP-Z]{4}-[2-9A-HJ-NP-Z]{4}/)!.output)
            let crossed = try await api.post(
                "/oauth/reset_password_native", Self.resetFields("once@example.com", code: verificationCode))
            #expect(crossed.code == 390 && (crossed.json["invalid_fields"] as? [String: Any])?["verification_code"] != nil)
            #expect(
                try await api.post("/oauth/reset_password_native", Self.resetFields("once@example.com", code: code!)).stat == "ok"
            )
            #expect(
                try await api.post("/oauth/reset_password_native", Self.resetFields("once@example.com", code: code!)).code == 390)

            _ = try await api.post("/oauth/forgot_password_native", ask)
            (_, code) = try await Self.mailed(world, to: "once@example.com")
            world.time.advance(by: 31 * 60)
            #expect(
                try await api.post("/oauth/reset_password_native", Self.resetFields("once@example.com", code: code!)).code == 390)

            // The new password's own rules still apply.
            _ = try await api.post("/oauth/forgot_password_native", ask)
            (_, code) = try await Self.mailed(world, to: "once@example.com")
            let short = try await api.post(
                "/oauth/reset_password_native", Self.resetFields("once@example.com", code: code!, password: "short"))
            #expect(short.code == 390 && (short.json["invalid_fields"] as? [String: Any])?["newPassword"] != nil)
        }
    }

    /// The reset screen checks its link's code as it shows: the check spends nothing; a typed code is charged to the
    /// requester as a typed reset is, so checking is no better a way to guess, while a link's code is never charged;
    /// a verification code is not a reset code.
    @Test func aResetCodeIsCheckedWithoutSpendingItAndTypedChecksAreChargedToTheRequester() async throws {
        try await withAPI { api, world in
            try await world.register("check@example.com", password: Self.password)
            let ask = Self.flow("forgotPasswordForm", ["signInEmailAddress": "check@example.com"])
            func check(_ code: String, _ extra: [String: String] = [:]) async throws -> Reply {
                try await api.post(
                    "/access/checkResetCode",
                    ["verification_code": code, "email": "check@example.com", "client_id": "demo-mobile-app"]
                        .merging(extra) { _, new in new })
            }
            _ = try await api.post("/oauth/forgot_password_native", ask)
            var (_, code) = try await Self.mailed(world, to: "check@example.com")
            #expect(try await check(code!).stat == "ok")
            #expect(try await check(code!).stat == "ok", "checking spends nothing")
            let verification = try #require(try await world.service.admin.listMail().last { $0.kind == .emailVerification })
            let verificationCode = String(verification.text!.firstMatch(of: /[2-9A-HJ-NP-Z]{4}-[2-9A-HJ-NP-Z]{4}/)!.output)
            let crossed = try await check(verificationCode)
            #expect(crossed.code == 390 && (crossed.json["invalid_fields"] as? [String: Any])?["verification_code"] != nil)
            #expect(try await check(code!, ["newPassword": "x"]).code == 200, "only the check's own parameters")
            #expect(
                try await api.post("/oauth/reset_password_native", Self.resetFields("check@example.com", code: code!)).stat
                    == "ok")
            #expect(try await check(code!).code == 390, "spent by the reset")
            // Five typed entries from this requester (the router's, which has no address): the sixth is refused
            // unread, and a link's code is still taken, as often as it is shown.
            #expect(try await check(code!).code == 510)
            _ = try await api.post("/oauth/forgot_password_native", ask)
            (_, code) = try await Self.mailed(world, to: "check@example.com")
            let link = try #require(try await Self.linkCode(world, to: "check@example.com"))
            for _ in 0..<8 { #expect(try await check(link).stat == "ok") }
            #expect(try await check(code!).code == 510, "typed, it waits for the requester's allowance")
            world.time.advance(by: CodeGuessing.typedDrainSeconds / Double(CodeGuessing.typedPerRequester) + 1)
            #expect(try await check(code!).stat == "ok", "one entry back after a fifth of the drain time")
            #expect(
                try await api.post("/oauth/reset_password_native", Self.resetFields("check@example.com", code: link)).stat
                    == "ok")
            #expect(try await check(link).code == 390, "spent")
        }
    }

    @Test func codeRequestsAreLimitedPerAddressAliveOrNot() async throws {
        try await withAPI(configure: { $0.codeRequestsPerEmail = 2 }) { api, world in
            try await world.register("limit@example.com", password: Self.password)
            for email in ["limit@example.com", "ghost@example.com"] {
                let ask = Self.flow("forgotPasswordForm", ["signInEmailAddress": email])
                for _ in 0..<2 { #expect(try await api.post("/oauth/forgot_password_native", ask).stat == "ok") }
                #expect(try await api.post("/oauth/forgot_password_native", ask).code == 510)
            }
        }
    }

    @Test func registrationSendsAVerificationCodeThatVerifiesTheAddress() async throws {
        try await withAPI { api, world in
            let grant = try #require(try await world.register("verify@example.com", password: Self.password).grant)
            let (entry, code) = try await Self.mailed(world, to: "verify@example.com")
            #expect(entry.kind == .emailVerification && entry.status == .pending)
            #expect(
                try await api.post("/entity", ["access_token": grant.accessToken]).json["result"].flatMap {
                    ($0 as? [String: Any])?["emailVerified"]
                } is NSNull)
            let wrong = try await api.post(
                "/access/useVerificationCode", ["verification_code": "ZZZZ-ZZZZ", "email": "verify@example.com"])
            #expect(wrong.code == 390)
            let used = try await api.post(
                "/access/useVerificationCode", ["verification_code": code!, "email": "verify@example.com"])
            #expect(used.stat == "ok")
            let record = try #require(
                try await api.post("/entity", ["access_token": grant.accessToken]).json["result"] as? [String: Any])
            #expect(record["emailVerified"] is String)
            // Asking again for a verified address sends nothing, and says so to nobody.
            let again = try await api.post(
                "/oauth/verify_email_native", Self.flow("resendVerificationForm", ["emailAddress": "verify@example.com"]))
            #expect(again.text == #"{"stat":"ok"}"#)
            #expect(try await Self.mailed(world, to: "verify@example.com").0.status == .suppressed)
        }
    }

    @Test func aPasswordResetLiftsTheLockoutOfTheAccount() async throws {
        try await withAPI(configure: { $0.signInMaxFailures = 3 }) { api, world in
            try await world.register("locked@example.com", password: Self.password)
            for _ in 0..<3 {
                _ = try await api.post(
                    "/oauth/auth_native_traditional", TestWorld.signIn(email: "locked@example.com", password: "guess"))
            }
            let locked = try await api.post(
                "/oauth/auth_native_traditional", TestWorld.signIn(email: "locked@example.com", password: Self.password))
            #expect(locked.code == 510)
            _ = try await api.post(
                "/oauth/forgot_password_native", Self.flow("forgotPasswordForm", ["signInEmailAddress": "locked@example.com"]))
            let (_, code) = try await Self.mailed(world, to: "locked@example.com")
            #expect(
                try await api.post("/oauth/reset_password_native", Self.resetFields("locked@example.com", code: code!)).stat
                    == "ok")
            let after = try await api.post(
                "/oauth/auth_native_traditional", TestWorld.signIn(email: "locked@example.com", password: Self.newPassword))
            #expect(after.stat == "ok")
        }
    }

    @Test func changingThePasswordNeedsTheCurrentOneAndEndsTheOtherSessions() async throws {
        try await withAPI { api, world in
            let first = try #require(try await world.register("change@example.com", password: Self.password).grant)
            let signIn = try await api.post(
                "/oauth/auth_native_traditional", TestWorld.signIn(email: "change@example.com", password: Self.password))
            let current = try #require(signIn.json["access_token"] as? String)
            var change = Self.flow(
                "changePasswordForm",
                [
                    "currentPassword": "not it", "newPassword": Self.newPassword, "newPasswordConfirm": Self.newPassword,
                ], flow: "webViewProfile")
            change["access_token"] = current
            let wrong = try await api.post("/oauth/update_profile_native", change)
            #expect(wrong.code == 390 && (wrong.json["invalid_fields"] as? [String: Any])?["currentPassword"] != nil)
            change["currentPassword"] = Self.password
            #expect(try await api.post("/oauth/update_profile_native", change).stat == "ok")
            #expect(try await api.post("/entity", ["access_token": current]).stat == "ok", "this session goes on")
            #expect(try await api.post("/entity", ["access_token": first.accessToken]).code == 200, "the other one ended")
            #expect(
                try await api.post(
                    "/oauth/auth_native_traditional", TestWorld.signIn(email: "change@example.com", password: Self.newPassword)
                ).stat == "ok")
        }
    }

    @Test func aClientThatRequiresVerifiedAddressesAnswers112AndSendsACode() async throws {
        try await withAPI(configure: { settings in
            settings.clients = settings.clients.map {
                var client = $0; client.requireVerifiedEmail = true; return client
            }
        }) { api, world in
            // Registration made the account and mailed the code, and hands out nothing (issue 27).
            let registered = try await api.post(
                "/oauth/register_native_traditional",
                TestWorld.registration(email: "unverified@example.com", password: Self.password))
            #expect(registered.code == 112 && registered["access_token"] == nil && registered["authorization_code"] == nil)
            #expect(try await world.service.admin.listMail().filter { $0.recipient == "unverified@example.com" }.count == 1)
            let reply = try await api.post(
                "/oauth/auth_native_traditional", TestWorld.signIn(email: "unverified@example.com", password: Self.password))
            #expect(reply.code == 112 && reply.json["error"] as? String == "email_not_verified")
            let (entry, code) = try await Self.mailed(world, to: "unverified@example.com")
            #expect(entry.kind == .emailVerification && code != nil)
            _ = try await api.post(
                "/access/useVerificationCode", ["verification_code": code!, "email": "unverified@example.com"])
            #expect(
                try await api.post(
                    "/oauth/auth_native_traditional", TestWorld.signIn(email: "unverified@example.com", password: Self.password)
                ).stat == "ok")
        }
    }

    /// Issue 27: a session whose address became unproven gets nothing from a refresh or a code exchange either, and
    /// the one-use token is not spent by the refusal.
    @Test func refreshAndCodeExchangeAlsoWaitForTheProvenAddress() async throws {
        try await withAPI(configure: { settings in
            settings.clients = settings.clients.map {
                var client = $0; client.requireVerifiedEmail = true; return client
            }
        }) { api, world in
            let email = "later@example.com"
            _ = try? await world.register(email, password: Self.password)
            var user = try #require(try await world.service.store.users.find(email: email))
            user.emailVerifiedAt = world.time.now()
            try await world.service.store.users.update(user)
            var signIn = TestWorld.signIn(email: email, password: Self.password)
            signIn["response_type"] = "code_and_token"
            let signedIn = try await api.post("/oauth/auth_native_traditional", signIn)
            let refresh = try #require(signedIn["refresh_token"] as? String, "\(signedIn.json)")
            let code = try #require(signedIn["authorization_code"] as? String)
            user.emailVerifiedAt = nil
            try await world.service.store.users.update(user)
            let mailedBefore = try await world.service.admin.listMail().count
            let refused = try await api.post(
                "/oauth/token", ["grant_type": "refresh_token", "refresh_token": refresh, "client_id": "demo-mobile-app"])
            #expect(refused.status == .badRequest && refused["error"] as? String == "invalid_grant" && refused.code == 112)
            let exchange = [
                "grant_type": "authorization_code", "code": code, "client_id": "demo-mobile-app",
                "redirect_uri": TestWorld.flowParameters(form: "")["redirect_uri"] ?? "",
            ].filter { !$0.value.isEmpty }
            #expect(try await api.post("/oauth/token", exchange).code == 112)
            #expect(try await world.service.admin.listMail().count > mailedBefore, "a code went to the address")
            user.emailVerifiedAt = world.time.now()
            try await world.service.store.users.update(user)
            let refreshed = try await api.post(
                "/oauth/token", ["grant_type": "refresh_token", "refresh_token": refresh, "client_id": "demo-mobile-app"])
            #expect(refreshed["access_token"] is String, "the refusal spent nothing: \(refreshed.json)")
        }
    }

    @Test func bodiesAreForgottenOnceTheirCodeExpires() async throws {
        let world = try await TestWorld.make()
        try await world.register("expiring@example.com", password: Self.password)
        #expect(try await world.service.admin.listMail().first?.text != nil)
        world.time.advance(by: 24 * 3600 + 1)
        #expect(try await world.service.store.outbox.forgetBodies(at: world.time.now()) == 1)
        let entry = try #require(try await world.service.admin.listMail().first)
        #expect(entry.text == nil && entry.html == nil && entry.subject == "Confirm your email address")
        await #expect(throws: CaptureError.self) { try await world.service.admin.retryMail(entry.id!) }
    }

    @Test func theRecoveryCallsJanrainsSDKsMakeAreAcceptedAsSent() async throws {
        try await withAPI { api, world in
            try await world.register("sdk@example.com", password: Self.password)
            // jump.android's performForgotPassword and resend-verification parameters, response_type code included.
            for responseType in ["token", "code"] {
                let forgot = try await api.post(
                    "/oauth/forgot_password_native",
                    [
                        "client_id": "demo-mobile-app", "locale": "en-US", "response_type": responseType,
                        "redirect_uri": "http://android.library", "signInEmailAddress": "sdk@example.com",
                        "flow_version": "20261122", "flow": "webViewSignIn", "form": "forgotPasswordForm",
                    ])
                #expect(forgot.text == #"{"stat":"ok"}"#, "\(forgot.json)")
            }
            let resend = try await api.post(
                "/oauth/verify_email_native",
                [
                    "client_id": "demo-mobile-app", "locale": "en-US", "response_type": "token",
                    "redirect_uri": "http://android.library", "form": "resendVerificationForm",
                    "emailAddress": "sdk@example.com", "flow_version": "20261122", "flow": "webViewSignIn",
                ])
            #expect(resend.text == #"{"stat":"ok"}"#, "\(resend.json)")
            #expect(try await world.service.admin.listMail().filter { $0.status == .pending }.count == 4)
        }
    }
}
