import CaptureCore
import CaptureTestSupport
import Foundation
import Hummingbird
import Testing

/// The social Capture calls of jump.ios (JRCaptureData.captureTokenUrlWithMergeToken, JRCapture.registerNewUser,
/// startLinkNewAccountFordelegate, startAccountUnLinking, JRCaptureError) and jump.android (Capture.performSocialSignIn,
/// performRegistration, performTraditionalSignIn, performLinkAccount, performUnlinkAccount, CaptureApiError), each
/// sent with exactly the parameters the SDK puts in the request, against a real provider (SocialSignInTests'), and
/// checked for what the SDK then reads (docs/janrain-compatibility.md, one test per row).
///
/// The `token` is what our `/social/callback` hands the app (where the SDKs had Engage's auth_info token). Both SDKs
/// keep the token they sent: after a 380 it is their merge token (`JRMergeToken`, `getMergeToken()`), after a 310
/// their social registration token; neither reads a token from the reply.
@Suite(.serialized) struct SDKSocialParameterPassTests {
    typealias SDK = SDKParameterPassTests

    /// What the SDKs hold after a provider sign-in: the app signed in with the provider's own SDK (an ID token for our
    /// provider client id) and `/signin/oauth_token` gave the one-time token in its reply. It never travelled through a
    /// redirect, so it needs no `code_verifier` (docs/contract.md §15), as the SDKs send none.
    static func oneTimeToken(_ api: API, _ issuer: String, subject: String) async throws -> String {
        let app = try await NativeSignInTests.signInAtProvider(issuer, clientID: "capture-bridge-test", subject: subject)
        let exchanged = try await api.post("/signin/oauth_token", ["token": app.idToken, "provider": "mock"])
        return try #require(exchanged["token"] as? String, "\(exchanged.json)")
    }

    /// jump.ios: JREngage POSTs the body `token=<token>` (unescaped, NSURLRequest's default form content type) to the
    /// "token URL" JRCaptureData built: `/oauth/auth_native?` with every other parameter in the query. `redirect_uri`
    /// is the app's `captureRedirectUri` or, by default, the Capture domain + `/cmeu`.
    static func iosAuthNative(
        _ api: API, _ world: TestWorld, token: String, thin: Bool = true, mergeToken: String? = nil
    ) async throws -> Reply {
        var query = [
            "client_id": "demo-mobile-app", "locale": "en-US", "response_type": "token",
            "redirect_uri": world.service.settings.resolvedPublicOrigin + "/cmeu",
            "thin_registration": thin ? "true" : "false", "refresh_secret": SDK.iosSecret, "flow": SDK.flow,
            "flow_version": SDK.flowVersion, "bp_channel": "https://bp.example/v1.1/bus/app/channel/7",
            "registration_form": "socialRegistrationForm",
        ]
        query["merge_token"] = mergeToken
        return try await api.post("/oauth/auth_native?" + API.form(query), raw: ByteBuffer(string: "token=" + token))
    }

    /// jump.android `Capture.performSocialSignIn`: everything in the form body; `flow_version`, `flow`,
    /// `registration_form` and `merge_token` only when set.
    static func androidAuthNative(_ api: API, token: String, thin: Bool = true, mergeToken: String? = nil) async throws -> Reply {
        var fields = [
            "client_id": "demo-mobile-app", "locale": "en-US", "response_type": "token",
            "redirect_uri": "http://android.library", "token": token, "thin_registration": thin ? "true" : "false",
            "refresh_secret": SDK.androidSecret, "flow_version": SDK.flowVersion, "flow": SDK.flow,
            "registration_form": "socialRegistrationForm",
        ]
        fields["merge_token"] = mergeToken
        return try await api.post("/oauth/auth_native", fields)
    }

    /// What jump.ios's JRCapture.signInHandler / JRCaptureUser and jump.android's SignInResultHandler / CaptureRecord
    /// read from a sign-in, plus `capture_user.profiles` (jump.ios keeps them as its linked profiles).
    static func expectSocialSignIn(_ reply: Reply, email: String, isNew: Bool, profiles: Set<String>, _ comment: Comment? = nil) {
        SDK.expectSignedIn(reply, email: email, isNew: isNew, comment)
        let listed = ((reply["capture_user"] as? [String: Any])?["profiles"] as? [[String: Any]]) ?? []
        #expect(Set(listed.compactMap { $0["identifier"] as? String }) == profiles, comment)
        #expect(listed.allSatisfy { $0["domain"] as? String == "mock" }, comment)
    }

    /// A signed refresh with the secret the SDK sent at sign-in: what both SDKs do when the access token expires.
    static func expectRefreshWorks(_ api: API, _ world: TestWorld, accessToken: String, secret: String) async throws {
        let date = SignedRefreshTests.date(world.time.now())
        let refreshed = try await api.post(
            "/oauth/refresh_access_token",
            [
                "access_token": accessToken, "date": date, "client_id": "demo-mobile-app", "locale": "en-US",
                "signature": SignedRefreshTests.signature(date: date, token: accessToken, secret: secret),
            ])
        #expect(refreshed.stat == "ok" && refreshed["access_token"] is String, "\(refreshed.json)")
    }

    // MARK: - /oauth/auth_native

    @Test func jumpIOSSocialSignInAsSent() async throws {
        try await SocialSignInTests.withProvider { issuer, api, world, _ in
            try await SocialSignInTests.provide(
                issuer, subject: "ios-social",
                claims: [
                    "email": "ios-social@example.com", "email_verified": true, "given_name": "Io", "name": "Io S",
                ])
            let token = try await Self.oneTimeToken(api, issuer, subject: "ios-social")
            // The one-time token never travels in a URL, and a name may not come in both.
            let inQuery = try await api.post(
                "/oauth/auth_native?client_id=demo-mobile-app&token=\(token)", raw: ByteBuffer(string: "flow=\(SDK.flow)"))
            #expect(inQuery.status == .badRequest && inQuery["argument"] as? String == "query")
            let twice = try await api.post(
                "/oauth/auth_native?flow=\(SDK.flow)", raw: ByteBuffer(string: "flow=\(SDK.flow)&token=\(token)"))
            #expect(twice.status == .badRequest && twice["argument"] as? String == "flow")

            let signedUp = try await Self.iosAuthNative(api, world, token: token)
            Self.expectSocialSignIn(signedUp, email: "ios-social@example.com", isNew: true, profiles: ["mock:ios-social"])
            // The refresh_secret that came in the URL is the one the session refreshes with.
            let access = try #require(signedUp["access_token"] as? String)
            try await Self.expectRefreshWorks(api, world, accessToken: access, secret: SDK.iosSecret)

            let again = try await Self.iosAuthNative(
                api, world, token: try await Self.oneTimeToken(api, issuer, subject: "ios-social"))
            Self.expectSocialSignIn(again, email: "ios-social@example.com", isNew: false, profiles: ["mock:ios-social"])
            // A spent token: JRCaptureError reads code, error, error_description.
            SDK.expectJanrainError(try await Self.iosAuthNative(api, world, token: token), code: 200)
        }
    }

    @Test func jumpAndroidSocialSignInAsSent() async throws {
        try await SocialSignInTests.withProvider { issuer, api, world, _ in
            try await SocialSignInTests.provide(
                issuer, subject: "droid-social",
                claims: [
                    "email": "droid-social@example.com", "email_verified": true, "given_name": "Dro",
                ])
            let signedUp = try await Self.androidAuthNative(
                api, token: try await Self.oneTimeToken(api, issuer, subject: "droid-social"))
            Self.expectSocialSignIn(signedUp, email: "droid-social@example.com", isNew: true, profiles: ["mock:droid-social"])
            let access = try #require(signedUp["access_token"] as? String)
            try await Self.expectRefreshWorks(api, world, accessToken: access, secret: SDK.androidSecret)
            let again = try await Self.androidAuthNative(
                api, token: try await Self.oneTimeToken(api, issuer, subject: "droid-social"))
            Self.expectSocialSignIn(again, email: "droid-social@example.com", isNew: false, profiles: ["mock:droid-social"])
            // A registration_form the flow does not have is named, not ignored.
            let unknownForm = try await api.post(
                "/oauth/auth_native",
                [
                    "client_id": "demo-mobile-app", "flow": SDK.flow, "registration_form": "noSuchForm",
                    "token": try await Self.oneTimeToken(api, issuer, subject: "droid-social"),
                ])
            #expect(unknownForm.code == 200 && unknownForm["argument"] as? String == "registration_form")
        }
    }

    // MARK: - 310, then /oauth/register_native

    /// Without thin registration: 310 with `prereg_fields` (JRCaptureError keeps them; `JRPreregistrationRecord`
    /// fills a JRCaptureUser from them through the flow), then `registerNewUser:socialRegistrationToken:` with the
    /// token the SDK sent, which reads `access_token` and then `/entity`'s `result`.
    @Test func jumpIOSTwoStepSocialRegistrationAsSent() async throws {
        try await SocialSignInTests.withProvider { issuer, api, world, _ in
            try await SocialSignInTests.provide(
                issuer, subject: "ios-two-step",
                claims: [
                    "email": "ios-two-step@example.com", "email_verified": true, "given_name": "Twain",
                ])
            let token = try await Self.oneTimeToken(api, issuer, subject: "ios-two-step")
            let asked = try await Self.iosAuthNative(api, world, token: token, thin: false)
            SDK.expectJanrainError(asked, code: 310)
            #expect(asked["error"] as? String == "record_not_found")
            let prefill = try #require(asked["prereg_fields"] as? [String: String])
            #expect(prefill == ["emailAddress": "ios-two-step@example.com", "firstName": "Twain"])

            var fields = SDK.merged(SDK.ios(world, form: "socialRegistrationForm"), prefill)
            fields.merge([
                "displayName": "Twain", "lastName": "Step", "refresh_secret": SDK.iosSecret,
                "bp_channel": "https://bp.example/v1.1/bus/app/channel/7", "token": token,
            ]) { $1 }
            let registered = try await api.post("/oauth/register_native", fields)
            SDK.expectSignedIn(registered, email: "ios-two-step@example.com", isNew: true)
            let access = try #require(registered["access_token"] as? String)
            let entity = try await api.post("/entity", ["access_token": access])
            SDK.expectCaptureRecord(entity["result"], email: "ios-two-step@example.com")
            let profiles = ((entity["result"] as? [String: Any])?["profiles"] as? [[String: Any]]) ?? []
            #expect(profiles.map { $0["identifier"] as? String } == ["mock:ios-two-step"])
            try await Self.expectRefreshWorks(api, world, accessToken: access, secret: SDK.iosSecret)
        }
    }

    /// jump.android: `CaptureApiError.isTwoStepRegFlowError()` (310), `getPreregistrationRecord()` from
    /// `prereg_fields`, `getSocialRegistrationToken()` (the token it sent), then `performRegistration(…, token)`,
    /// which reads `capture_user` and `access_token`.
    @Test func jumpAndroidTwoStepSocialRegistrationAsSent() async throws {
        try await SocialSignInTests.withProvider { issuer, api, world, _ in
            try await SocialSignInTests.provide(
                issuer, subject: "droid-two-step",
                claims: [
                    "email": "droid-two-step@example.com", "email_verified": true, "given_name": "Andro",
                ])
            let token = try await Self.oneTimeToken(api, issuer, subject: "droid-two-step")
            let asked = try await Self.androidAuthNative(api, token: token, thin: false)
            SDK.expectJanrainError(asked, code: 310)
            let prefill = try #require(asked["prereg_fields"] as? [String: String])
            #expect(prefill["emailAddress"] == "droid-two-step@example.com")

            var fields = SDK.merged(SDK.android(form: "socialRegistrationForm"), prefill)
            fields.merge([
                "displayName": "Andro", "lastName": "Id", "refresh_secret": SDK.androidSecret, "token": token,
            ]) { $1 }
            let registered = try await api.post("/oauth/register_native", fields)
            SDK.expectSignedIn(registered, email: "droid-two-step@example.com", isNew: true)
            #expect(((registered["capture_user"] as? [String: Any])?["profiles"] as? [Any])?.count == 1)
            // The registration token works once.
            SDK.expectJanrainError(try await api.post("/oauth/register_native", fields), code: 200)
        }
    }
}
