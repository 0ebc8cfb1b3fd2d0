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

    // MARK: - 380, then the merge

    /// 380 with `existing_provider: "capture"`: the app asks for the password and calls
    /// `startCaptureTraditionalSignInForUser:withPassword:mergeToken:` with the token of the social sign-in.
    @Test func jumpIOSMergeIntoAPasswordAccountAsSent() async throws {
        try await SocialSignInTests.withProvider { issuer, api, world, _ in
            try await world.register("ios-merge@example.com", password: SDK.password)
            try await SocialSignInTests.provide(
                issuer, subject: "ios-merge", claims: ["email": "ios-merge@example.com", "email_verified": true])
            let token = try await Self.oneTimeToken(api, issuer, subject: "ios-merge")
            let conflict = try await Self.iosAuthNative(api, world, token: token)
            SDK.expectJanrainError(conflict, code: 380)
            #expect(conflict["existing_provider"] as? String == "capture")

            let merge = SDK.merged(
                SDK.ios(world, form: "signInForm"),
                [
                    "signInEmailAddress": "ios-merge@example.com", "currentPassword": SDK.password,
                    "refresh_secret": SDK.iosSecret, "merge_token": token,
                ])
            // Into another account of the same person: refused, the token is for the address the 380 named.
            try await world.register("ios-other@example.com", password: SDK.password)
            var elsewhere = merge
            elsewhere["signInEmailAddress"] = "ios-other@example.com"
            let refused = try await api.post("/oauth/auth_native_traditional", elsewhere)
            SDK.expectJanrainError(refused, code: 200)
            #expect(refused["argument"] as? String == "merge_token")

            let merged = try await api.post("/oauth/auth_native_traditional", merge)
            Self.expectSocialSignIn(merged, email: "ios-merge@example.com", isNew: false, profiles: ["mock:ios-merge"])

            let next = try await Self.iosAuthNative(
                api, world, token: try await Self.oneTimeToken(api, issuer, subject: "ios-merge"))
            Self.expectSocialSignIn(next, email: "ios-merge@example.com", isNew: false, profiles: ["mock:ios-merge"])
        }
    }

    /// jump.android: `isMergeFlowError()` (380), `getExistingAccountIdentityProvider()` = `existing_provider`,
    /// then `performTraditionalSignIn(user, password, handler, getMergeToken())`.
    @Test func jumpAndroidMergeIntoAPasswordAccountAsSent() async throws {
        try await SocialSignInTests.withProvider { issuer, api, world, _ in
            try await world.register("droid-merge@example.com", password: SDK.password)
            try await SocialSignInTests.provide(
                issuer, subject: "droid-merge", claims: ["email": "droid-merge@example.com", "email_verified": true])
            let token = try await Self.oneTimeToken(api, issuer, subject: "droid-merge")
            let conflict = try await Self.androidAuthNative(api, token: token)
            SDK.expectJanrainError(conflict, code: 380)
            #expect(conflict["existing_provider"] as? String == "capture")

            // Before the flow is downloaded jump.android sends `user` + `password` and no flow_version.
            var merge = SDK.merged(
                SDK.android(form: "signInForm"),
                [
                    "user": "droid-merge@example.com", "password": SDK.password, "refresh_secret": SDK.androidSecret,
                    "merge_token": token,
                ])
            merge.removeValue(forKey: "flow_version")
            let merged = try await api.post("/oauth/auth_native_traditional", merge)
            Self.expectSocialSignIn(merged, email: "droid-merge@example.com", isNew: false, profiles: ["mock:droid-merge"])
        }
    }

    /// 380 naming a provider (the account was made by one and has no password): the SDKs sign in with that
    /// provider and send the first token as `merge_token` (jump.ios in the token URL's query, jump.android in the
    /// body); that sign-in links the first provider account to the account.
    static func mergeThroughTheExistingProvider(
        _ api: API, issuer: String, sdk: String, authNative: (_ token: String, _ mergeToken: String?) async throws -> Reply
    ) async throws {
        let email = "\(sdk)-made-by-provider@example.com"
        try await SocialSignInTests.provide(
            issuer, subject: "\(sdk)-first", claims: ["email": .string(email), "email_verified": true])
        try await SocialSignInTests.provide(
            issuer, subject: "\(sdk)-second", claims: ["email": .string(email), "email_verified": true])
        let made = try await authNative(try await oneTimeToken(api, issuer, subject: "\(sdk)-first"), nil)
        expectSocialSignIn(made, email: email, isNew: true, profiles: ["mock:\(sdk)-first"])

        let mergeToken = try await oneTimeToken(api, issuer, subject: "\(sdk)-second")
        let conflict = try await authNative(mergeToken, nil)
        SDK.expectJanrainError(conflict, code: 380)
        #expect(conflict["existing_provider"] as? String == "mock", "no password to ask for: the provider it signs in with")

        let merged = try await authNative(try await oneTimeToken(api, issuer, subject: "\(sdk)-first"), mergeToken)
        expectSocialSignIn(merged, email: email, isNew: false, profiles: ["mock:\(sdk)-first", "mock:\(sdk)-second"])
        let viaSecond = try await authNative(try await oneTimeToken(api, issuer, subject: "\(sdk)-second"), nil)
        expectSocialSignIn(viaSecond, email: email, isNew: false, profiles: ["mock:\(sdk)-first", "mock:\(sdk)-second"])
        #expect(
            (viaSecond["capture_user"] as? [String: Any])?["uuid"] as? String
                == (made["capture_user"] as? [String: Any])?["uuid"] as? String)
        // The merge spent the merge token.
        SDK.expectJanrainError(
            try await authNative(try await oneTimeToken(api, issuer, subject: "\(sdk)-first"), mergeToken), code: 200)
    }

    /// jump.ios: `JRMergeFlowExistingProvider` names the provider; the app calls
    /// `startEngageSignInDialogOnProvider:withCustomInterfaceOverrides:mergeToken:forDelegate:` with `JRMergeToken`.
    @Test func jumpIOSMergeThroughTheExistingProviderAsSent() async throws {
        try await SocialSignInTests.withProvider { issuer, api, world, _ in
            try await Self.mergeThroughTheExistingProvider(api, issuer: issuer, sdk: "ios") { token, mergeToken in
                try await Self.iosAuthNative(api, world, token: token, mergeToken: mergeToken)
            }
        }
    }

    /// jump.android: `getExistingAccountIdentityProvider()` names the provider; the app signs in with it and
    /// `performSocialSignIn(token, handler, provider, error.getMergeToken())`.
    @Test func jumpAndroidMergeThroughTheExistingProviderAsSent() async throws {
        try await SocialSignInTests.withProvider { issuer, api, _, _ in
            try await Self.mergeThroughTheExistingProvider(api, issuer: issuer, sdk: "droid") { token, mergeToken in
                try await Self.androidAuthNative(api, token: token, mergeToken: mergeToken)
            }
        }
    }

    // MARK: - /oauth/link_account_native

    /// JRCapture.startLinkNewAccountFordelegate: reads `stat`, then `/entity` (`access_token` alone) for
    /// `result.profiles`.
    @Test func jumpIOSLinkAccountAsSent() async throws {
        try await SocialSignInTests.withProvider { issuer, api, world, _ in
            let access = try #require(
                try await world.registerProven("ios-link@example.com", password: SDK.password).grant?.accessToken)
            try await SocialSignInTests.provide(issuer, subject: "ios-link", claims: ["email": "ios-link@elsewhere.example"])
            let linked = try await api.post(
                "/oauth/link_account_native",
                [
                    "client_id": "demo-mobile-app", "locale": "en-US", "response_type": "token",
                    "redirect_uri": world.service.settings.resolvedPublicOrigin, "access_token": access,
                    "token": try await Self.oneTimeToken(api, issuer, subject: "ios-link"), "flow": SDK.flow,
                    "flow_version": SDK.flowVersion,
                ])
            #expect(linked.stat == "ok", "\(linked.json)")
            let entity = try await api.post("/entity", ["access_token": access])
            let profiles = try #require((entity["result"] as? [String: Any])?["profiles"] as? [[String: Any]])
            #expect(profiles.map { $0["identifier"] as? String } == ["mock:ios-link"])
            #expect(profiles.first?["domain"] as? String == "mock")
        }
    }

    /// Capture.performLinkAccount: reads `stat` (CaptureApiResultHandler).
    @Test func jumpAndroidLinkAccountAsSent() async throws {
        try await SocialSignInTests.withProvider { issuer, api, world, _ in
            let access = try #require(
                try await world.registerProven("droid-link@example.com", password: SDK.password).grant?.accessToken)
            try await SocialSignInTests.provide(issuer, subject: "droid-link", claims: ["email": "droid-link@elsewhere.example"])
            let link = [
                "client_id": "demo-mobile-app", "locale": "en-US", "response_type": "token",
                "redirect_uri": "http://android.library", "access_token": access,
                "token": try await Self.oneTimeToken(api, issuer, subject: "droid-link"), "flow": SDK.flow,
                "flow_version": SDK.flowVersion,
            ]
            let linked = try await api.post("/oauth/link_account_native", link)
            #expect(linked.stat == "ok", "\(linked.json)")
            let profiles = (linked["capture_user"] as? [String: Any])?["profiles"] as? [[String: Any]]
            #expect(profiles?.map { $0["identifier"] as? String } == ["mock:droid-link"])
            // The token was spent: a failure carries code, error, error_description.
            SDK.expectJanrainError(try await api.post("/oauth/link_account_native", link), code: 200)
        }
    }

    // MARK: - /oauth/unlink_account_native

    /// JRCapture.startAccountUnLinking: `/entity` first (jump.ios refuses by itself to unlink an account's only
    /// profile unless the flow's `password` field has a value in the record, which ours never shows, so the app
    /// unlinks one of several), then startActualAccountUnLinking, which reads `stat`.
    @Test func jumpIOSUnlinkAccountAsSent() async throws {
        try await SocialSignInTests.withProvider { issuer, api, world, _ in
            let access = try #require(
                try await world.registerProven("ios-unlink@example.com", password: SDK.password).grant?.accessToken)
            for subject in ["ios-unlink-a", "ios-unlink-b"] {
                try await SocialSignInTests.provide(issuer, subject: subject, claims: ["email": "ios-unlink@example.com"])
                let linked = try await api.post(
                    "/oauth/link_account_native",
                    [
                        "client_id": "demo-mobile-app", "access_token": access, "flow": SDK.flow,
                        "token": try await Self.oneTimeToken(api, issuer, subject: subject),
                    ])
                #expect(linked.stat == "ok", "\(linked.json)")
            }
            let before = try await api.post("/entity", ["access_token": access])
            #expect(((before["result"] as? [String: Any])?["profiles"] as? [Any])?.count == 2)
            let unlink = [
                "client_id": "demo-mobile-app", "locale": "en-US", "identifier_to_remove": "mock:ios-unlink-a",
                "access_token": access, "flow": SDK.flow, "flow_version": SDK.flowVersion,
            ]
            let unlinked = try await api.post("/oauth/unlink_account_native", unlink)
            #expect(unlinked.stat == "ok", "\(unlinked.json)")
            let after = try await api.post("/entity", ["access_token": access])
            let left = ((after["result"] as? [String: Any])?["profiles"] as? [[String: Any]]) ?? []
            #expect(left.map { $0["identifier"] as? String } == ["mock:ios-unlink-b"])
            // Not linked (any more): 310 in Janrain's shape.
            SDK.expectJanrainError(try await api.post("/oauth/unlink_account_native", unlink), code: 310)
        }
    }

    /// Capture.performUnlinkAccount: reads `stat`; the last way into an account without a password stays (403).
    @Test func jumpAndroidUnlinkAccountAsSent() async throws {
        try await SocialSignInTests.withProvider { issuer, api, world, _ in
            try await SocialSignInTests.provide(
                issuer, subject: "droid-unlink",
                claims: [
                    "email": "droid-unlink@example.com", "email_verified": true,
                ])
            let signedUp = try await Self.androidAuthNative(
                api, token: try await Self.oneTimeToken(api, issuer, subject: "droid-unlink"))
            let access = try #require(signedUp["access_token"] as? String)
            let unlink = [
                "client_id": "demo-mobile-app", "locale": "en-US", "identifier_to_remove": "mock:droid-unlink",
                "access_token": access, "flow": SDK.flow, "flow_version": SDK.flowVersion,
            ]
            SDK.expectJanrainError(try await api.post("/oauth/unlink_account_native", unlink), code: 403)

            // With a second provider account linked, the first can go.
            try await SocialSignInTests.provide(issuer, subject: "droid-unlink-2", claims: ["email": "droid-unlink@example.com"])
            let linked = try await api.post(
                "/oauth/link_account_native",
                [
                    "client_id": "demo-mobile-app", "locale": "en-US", "response_type": "token",
                    "redirect_uri": "http://android.library", "access_token": access,
                    "token": try await Self.oneTimeToken(api, issuer, subject: "droid-unlink-2"), "flow": SDK.flow,
                    "flow_version": SDK.flowVersion,
                ])
            #expect(linked.stat == "ok", "\(linked.json)")
            let unlinked = try await api.post("/oauth/unlink_account_native", unlink)
            #expect(unlinked.stat == "ok", "\(unlinked.json)")
            let profiles = (unlinked["capture_user"] as? [String: Any])?["profiles"] as? [[String: Any]]
            #expect(profiles?.map { $0["identifier"] as? String } == ["mock:droid-unlink-2"])
        }
    }
}
