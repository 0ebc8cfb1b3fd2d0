import CaptureCore
import CaptureTestSupport
import Foundation
import Testing

extension SocialSignInTests {
    /// Issue 30: a provider proves its own account, not this account's second factor. A linked account with an
    /// authenticator app answers 270 after the provider's sign-in too, and the code finishes it through the provider.
    @Test func aProviderSignInToAnAccountWithASecondFactorAsksForIt() async throws {
        try await Self.withProvider { issuer, api, world, service in
            try await Self.provide(issuer, subject: "ivy", claims: ["email": "ivy@example.com", "email_verified": true])
            let first = try await Self.roundTrip(api, subject: "ivy")
            let signedUp = try await Self.authNative(api, token: try #require(first.fragment["capture_social_token"]))
            let access = try #require(signedUp["access_token"] as? String)
            let setup = try await service.factors.beginAuthenticatorSetup(accessToken: access, proof: StepUpProof())
            let secret = try #require(FactorsAPITests.secret(setup.secret))
            let now = service.time.now()
            _ = try await service.factors.confirmAuthenticatorSetup(
                accessToken: access, ticket: setup.setupTicket, code: TOTP(secret: secret).code(step: TOTP.step(at: now)))

            let again = try await Self.roundTrip(api, subject: "ivy")
            let token = try #require(again.fragment["capture_social_token"])
            let asked = try await Self.authNative(api, token: token)
            #expect(asked.code == 270 && asked["access_token"] == nil, "\(asked.json)")
            let ticket = try #require(asked["second_factor_ticket"] as? String)
            #expect(try await Self.authNative(api, token: token).code == 200, "the provider's token is spent")
            let next = TOTP(secret: secret).code(step: TOTP.step(at: now) + 1)
            let done = try await api.post(
                "/oauth/auth_native_second_factor",
                ["client_id": "demo-mobile-app", "locale": "en-US", "ticket": ticket, "code": next])
            #expect(done.stat == "ok", "\(done.json)")
            let introspected = try await service.tokens.introspect(token: try #require(done["access_token"] as? String))
            #expect(introspected?.record.authProvider == "mock")
            _ = world
        }
    }
}
