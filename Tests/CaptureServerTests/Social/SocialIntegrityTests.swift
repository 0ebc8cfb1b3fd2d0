import CaptureCore
import CaptureOutbound
import CaptureTestSupport
import Foundation
import HTTPTypes
import Testing

/// The attacks of docs/threat-model.md's "Social sign-in integrity", each tried from outside against the real
/// OpenID Connect provider the social suite runs: a callback in a browser that did not start the sign-in, a one-time
/// token redeemed by someone who did not start it, a provider claiming an address it does not vouch for (merge,
/// link-by-merge, thin registration), and a pre-hijacked account recovered by its owner.
@Suite(.serialized) struct SocialIntegrityTests {
    typealias Social = SocialSignInTests

    @Test func aCallbackInABrowserWithoutTheStateCookieIsNeverExchanged() async throws {
        try await Social.withProvider { issuer, api, world, service in
            try await Social.provide(
                issuer, subject: "mallory", claims: ["email": "mallory@example.com", "email_verified": true])
            // The attacker's own fresh callback address, opened in the victim's browser (no cookie, or another one).
            let (callback, cookie) = try await Social.providerAnswer(api, subject: "mallory")
            let bare = try await api.get(callback)
            #expect(bare.status == .badRequest && bare.headers[.location] == nil)
            #expect(bare.text.contains("started in another browser"))
            let victimsOwn = try await api.get("/social/mock/start?" + Social.startParameters())
            let victimCookie = String(try #require(victimsOwn.headers[.setCookie]).split(separator: ";")[0])
            let crossed = try await api.get(callback, headers: [.cookie: victimCookie])
            let location = try #require(crossed.headers[.location])
            #expect(Social.fragment(of: location) == ["capture_social_error": "state_mismatch", "provider": "mock"])
            #expect(try await service.store.users.list(search: nil, page: Page()).isEmpty, "nobody signed in")
            // The browser that started it still finishes it: the cookieless tries spent nothing.
            let own = try await api.get(callback, headers: [.cookie: cookie])
            #expect(Social.fragment(of: try #require(own.headers[.location]))["capture_social_token"] != nil)
        }
    }

    @Test func aHandOffTokenNeedsItsStartersVerifierAndAStartNeedsAChallenge() async throws {
        try await Social.withProvider { issuer, api, world, service in
            try await Social.provide(issuer, subject: "vic", claims: ["email": "vic@example.com", "email_verified": true])
            let token = try #require(try await Social.roundTrip(api, subject: "vic").fragment["capture_social_token"])
            // Taken from the app's return address by another app, redeemed with the public client id.
            let bare = try await Social.authNative(api, token: token, verifier: nil)
            #expect(bare.code == 200 && bare["argument"] as? String == "token" && bare["access_token"] == nil)
            let guessed = try await Social.authNative(api, token: token, verifier: String(repeating: "g", count: 43))
            #expect(guessed.code == 200 && guessed["access_token"] == nil)
            var register = TestWorld.flowParameters(form: "socialRegistrationForm")
            register.merge(["token": token, "emailAddress": "thief@example.com", "displayName": "Thief"]) { $1 }
            #expect(try await api.post("/oauth/register_native", register).code == 200)
            #expect(try await service.store.users.list(search: nil, page: Page()).isEmpty)
            // The refusals spent nothing: the starter still redeems it.
            let mine = try await Social.authNative(api, token: token)
            #expect(mine.stat == "ok" && mine["access_token"] is String)

            // A start without a challenge (or with a plain one) sends nobody to the provider.
            let base =
                "/social/mock/start?client_id=demo-mobile-app&flow=webViewSignIn&redirect_uri="
                + Social.page.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            for query in [
                "", "&code_challenge=\(Social.challenge)", "&code_challenge=\(Social.challenge)&code_challenge_method=plain",
            ] {
                let refused = try await api.get(base + query)
                #expect(refused.status == .badRequest && refused.headers[.location] == nil, "\(query)")
            }
        }
    }

    @Test func anAddressTheProviderDoesNotVouchForNeitherMergesNorRegistersNorPrefills() async throws {
        try await Social.withProvider { issuer, api, world, service in
            try await world.register("victim@corp.example", password: "correct horse battery")
            // An IdP that lets its users type any address (the "nOAuth" class): no email_verified.
            try await Social.provide(
                issuer, subject: "claims-victim", claims: ["email": "victim@corp.example", "given_name": "Eve"])
            let token = try #require(try await Social.roundTrip(api, subject: "claims-victim").fragment["capture_social_token"])
            let asked = try await Social.authNative(api, token: token)
            #expect(asked.code == 310, "no merge screen with the victim's address, no thin registration: \(asked.json)")
            #expect(asked["existing_email"] == nil)
            #expect(try #require(asked["prereg_fields"] as? [String: String]) == ["firstName": "Eve"])
            // Link-by-merge with the victim's password (the victim tricked into the merge) links nothing.
            var merge = TestWorld.signIn(email: "victim@corp.example", password: "correct horse battery")
            merge.merge(["merge_token": token, "code_verifier": Social.verifier]) { $1 }
            let refused = try await api.post("/oauth/auth_native_traditional", merge)
            #expect(refused.code == 200 && refused["argument"] as? String == "merge_token")
            let victim = try #require(try await service.store.users.find(email: "victim@corp.example"))
            #expect(try await service.providerLinks.linkedAccounts(of: victim).isEmpty)
        }
    }

    @Test func aProviderTheOperatorTrustsVouchesWithoutTheClaim() async throws {
        let trusted: @Sendable (String) async throws -> (settings: SocialProviderSettings, secret: String) = { base in
            var settings = SocialProviderSettings(
                name: "mock", displayName: "Corp ID", issuer: base, clientId: "capture-bridge-test", allowPlainHTTP: true)
            settings.trustEmail = true
            return (settings, "s3cret")
        }
        try await Social.withConfiguredProvider(trusted) { base, api in
            try await Social.provide(base, subject: "trusted", claims: ["email": "trusted@corp.example"])
            let token = try #require(try await Social.roundTrip(api, subject: "trusted").fragment["capture_social_token"])
            let made = try await Social.authNative(api, token: token)
            #expect(made.stat == "ok" && (made["capture_user"] as? [String: Any])?["emailVerified"] is String)
        }
    }

    @Test func theOwnersFirstProofOfTheMailboxEndsAPreHijack() async throws {
        try await Social.withProvider { issuer, api, world, service in
            // The attacker's provider account claims the victim's address without vouching; they type it on the
            // registration form, and the account is theirs through the provider.
            try await Social.provide(issuer, subject: "hijacker", claims: ["email": "owner@corp.example"])
            let token = try #require(try await Social.roundTrip(api, subject: "hijacker").fragment["capture_social_token"])
            #expect(try await Social.authNative(api, token: token).code == 310)
            var fields = TestWorld.flowParameters(form: "socialRegistrationForm")
            fields.merge([
                "token": token, "code_verifier": Social.verifier, "emailAddress": "owner@corp.example",
                "displayName": "Not The Owner", "redirect_uri": Social.page,
            ]) { $1 }
            let made = try await api.post("/oauth/register_native", fields)
            let intruderAccess = try #require(made["access_token"] as? String, "\(made.json)")
            let account = try #require(try await service.store.users.find(email: "owner@corp.example"))
            #expect(account.emailVerifiedAt == nil)
            // Linking another provider to the unproven account is refused too.
            try await Social.provide(issuer, subject: "second-way", claims: ["email": "x@elsewhere.example"])
            let second = try #require(try await Social.roundTrip(api, subject: "second-way").fragment["capture_social_token"])
            var link = TestWorld.flowParameters(form: "")
            link["form"] = nil
            link.merge(["access_token": intruderAccess, "token": second, "code_verifier": Social.verifier]) { $1 }
            #expect(try await api.post("/oauth/link_account_native", link).code == 403)

            // The owner: "forgot password", the mailed code, a new password.
            let ask = AccountRecoveryTests.flow("forgotPasswordForm", ["signInEmailAddress": "owner@corp.example"])
            #expect(try await api.post("/oauth/forgot_password_native", ask).stat == "ok")
            let (_, code) = try await AccountRecoveryTests.mailed(world, to: "owner@corp.example")
            let reset = try await api.post(
                "/oauth/reset_password_native", AccountRecoveryTests.resetFields("owner@corp.example", code: try #require(code)))
            #expect(reset.stat == "ok", "\(reset.json)")

            #expect(try await service.providerLinks.linkedAccounts(of: account).isEmpty, "the intruder's provider link is gone")
            #expect(try await service.tokens.introspect(token: intruderAccess) == nil, "and the intruder's session")
            let audit = try await service.audit.auditLog(AuditFilter(action: "identity.unlink", target: account.id))
            #expect(audit.count == 1 && audit[0].detail?.contains("mock:hijacker") == true)
            let notice = try #require(try await service.admin.listMail().first { $0.kind == .providerLinksRemoved })
            #expect(notice.recipient == "owner@corp.example" && notice.text?.contains("Mock ID") == true)
            // The attacker's next provider sign-in reaches no account of the owner's.
            let again = try #require(try await Social.roundTrip(api, subject: "hijacker").fragment["capture_social_token"])
            let next = try await Social.authNative(api, token: again)
            #expect(next.code == 310 && next["access_token"] == nil)
        }
    }

    @Test func aLinkTheProviderVouchedForSurvivesTheFirstProof() async throws {
        try await Social.withProvider { issuer, api, world, service in
            try await Social.provide(issuer, subject: "honest", claims: ["email": "honest@example.com", "email_verified": true])
            let token = try #require(try await Social.roundTrip(api, subject: "honest").fragment["capture_social_token"])
            #expect(try await Social.authNative(api, token: token).stat == "ok")
            var user = try #require(try await service.store.users.find(email: "honest@example.com"))
            // As if the address had never been proven (a record from before): the vouched link still stays.
            user.emailVerifiedAt = nil
            try await service.store.users.update(user)
            let ask = AccountRecoveryTests.flow("forgotPasswordForm", ["signInEmailAddress": "honest@example.com"])
            #expect(try await api.post("/oauth/forgot_password_native", ask).stat == "ok")
            let (_, code) = try await AccountRecoveryTests.mailed(world, to: "honest@example.com")
            #expect(
                try await api.post(
                    "/oauth/reset_password_native",
                    AccountRecoveryTests.resetFields("honest@example.com", code: try #require(code))
                ).stat == "ok")
            #expect(try await service.providerLinks.linkedAccounts(of: user).map(\.identifier) == ["mock:honest"])
        }
    }
}
