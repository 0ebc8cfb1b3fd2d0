import CaptureCore
import CaptureTestSupport
import Foundation
import Hummingbird
import Testing

/// Merges, links and unlinks as jump.ios and jump.android send them.
extension SDKSocialParameterPassTests {
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
