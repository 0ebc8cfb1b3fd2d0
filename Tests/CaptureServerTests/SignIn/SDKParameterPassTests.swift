import CaptureCore
import CaptureTestSupport
import Foundation
import Hummingbird
import Testing

/// Every non-social Capture call of jump.ios (JRCapture.m, JRCaptureApidInterface.m, JRCaptureData.m,
/// JRCaptureUIRequestBuilder.m) and jump.android (Capture.java, CaptureRecord.java, Jump.java), sent with exactly
/// the parameters each SDK puts in the body, and checked for what the SDK then reads from the reply
/// (docs/janrain-compatibility.md, one test per row).
@Suite struct SDKParameterPassTests {
    static let password = "sdk parameter pass"
    /// jump.ios: 20 random bytes as hex with the first digit forced to "a"; jump.android: 40 hex digits.
    static let iosSecret = "a" + String(repeating: "3f", count: 19) + "7"
    static let androidSecret = "5e0c1d2b3a49f8e7d6c5b4a3928170f6e5d4c3b2"
    static let flow = "webViewDemo"
    static let flowVersion = "20261122"

    /// What jump.ios adds to every flow call (`tradAuthParamsWithParams`, `registerNewUser`): `redirect_uri` is the
    /// app's `captureRedirectUri` or, by default, the Capture domain itself.
    static func ios(_ world: TestWorld, form: String, responseType: String = "token") -> [String: String] {
        [
            "client_id": "demo-mobile-app", "locale": "en-US", "form": form,
            "redirect_uri": world.service.settings.resolvedPublicOrigin, "response_type": responseType,
            "flow": flow, "flow_version": flowVersion,
        ]
    }

    /// What jump.android adds (`Capture.performTraditionalSignIn`, `performRegistration`): a fixed redirect URI.
    static func android(form: String, responseType: String = "token") -> [String: String] {
        [
            "client_id": "demo-mobile-app", "locale": "en-US", "form": form, "redirect_uri": "http://android.library",
            "response_type": responseType, "flow": flow, "flow_version": flowVersion,
        ]
    }

    static func merged(_ base: [String: String], _ extra: [String: String]) -> [String: String] {
        base.merging(extra) { _, new in new }
    }

    static func registrationFields(_ email: String) -> [String: String] {
        [
            "emailAddress": email, "displayName": "Sdk", "firstName": "Sd", "lastName": "K",
            "newPassword": password, "newPasswordConfirm": password,
        ]
    }

    /// Janrain's `yyyy-MM-dd HH:mm:ss.SSSSSS +0000`, as JRCaptureUser and CaptureRecord read dates.
    static func isJanrainDate(_ value: Any?) -> Bool {
        guard let text = value as? String else { return false }
        return text.wholeMatch(of: /\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6} \+0000/) != nil
    }

    /// What `JRCaptureUser captureUserObjectFromDictionary:` and `new CaptureRecord(JSONObject, token)` need.
    static func expectCaptureRecord(_ value: Any?, email: String, _ comment: Comment? = nil) {
        let user = value as? [String: Any]
        #expect(user != nil, comment)
        #expect(user?["uuid"] is String, comment)
        #expect(user?["id"] is Int, comment)
        #expect(user?["email"] as? String == email, comment)
        #expect(isJanrainDate(user?["created"]) && isJanrainDate(user?["lastUpdated"]), comment)
    }

    /// The sign-in and registration reply: `stat`, `access_token` (jump.ios fails without it), `capture_user`
    /// (jump.android fails without it), `is_new`, `expires_in`.
    static func expectSignedIn(_ reply: Reply, email: String, isNew: Bool, _ comment: Comment? = nil) {
        #expect(reply.stat == "ok", comment)
        #expect((reply["access_token"] as? String)?.isEmpty == false, comment)
        #expect(reply["is_new"] as? Bool == isNew, comment)
        #expect(reply["expires_in"] is Int, comment)
        expectCaptureRecord(reply["capture_user"], email: email, comment)
    }

    /// What `JRCaptureError errorFromResult:` and `new CaptureApiError(JSONObject, …)` read.
    static func expectJanrainError(_ reply: Reply, code: Int, _ comment: Comment? = nil) {
        #expect(reply.status == .ok && reply.stat == "error", comment)
        #expect(reply.code == code, comment)
        #expect(reply["error"] is String && reply["error_description"] is String, comment)
    }

    // MARK: - /oauth/auth_native_traditional

    @Test func jumpIOSTraditionalSignInAsSent() async throws {
        try await withAPI { api, world in
            try await world.register("ios-signin@example.com", password: Self.password)
            // Flow credentials (the downloaded flow's two sign-in fields), with the Backplane channel. (`merge_token`
            // comes only in a merge, with a social sign-in's token: SocialSignInTests.)
            let withFlow = Self.merged(
                Self.ios(world, form: "signInForm"),
                [
                    "signInEmailAddress": "ios-signin@example.com", "currentPassword": Self.password,
                    "refresh_secret": Self.iosSecret, "bp_channel": "https://bp.example/v1.1/bus/app/channel/42",
                ])
            Self.expectSignedIn(
                try await api.post("/oauth/auth_native_traditional", withFlow), email: "ios-signin@example.com", isNew: false)
            // Without a downloaded flow: the caller's own `user` + `password`, and no flow_version.
            var staticCredentials = Self.merged(
                Self.ios(world, form: "signInForm"),
                [
                    "user": "ios-signin@example.com", "password": Self.password, "refresh_secret": Self.iosSecret,
                ])
            staticCredentials.removeValue(forKey: "flow_version")
            Self.expectSignedIn(
                try await api.post("/oauth/auth_native_traditional", staticCredentials), email: "ios-signin@example.com",
                isNew: false)
            // A wrong password: JRCaptureError reads code, error, error_description.
            var wrong = withFlow
            wrong["currentPassword"] = "not the password"
            Self.expectJanrainError(try await api.post("/oauth/auth_native_traditional", wrong), code: 210)
        }
    }

    @Test func jumpAndroidTraditionalSignInAsSent() async throws {
        try await withAPI { api, world in
            try await world.register("droid-signin@example.com", password: Self.password)
            let withFlow = Self.merged(
                Self.android(form: "signInForm"),
                [
                    "signInEmailAddress": "droid-signin@example.com", "currentPassword": Self.password,
                    "refresh_secret": Self.androidSecret,
                ])
            Self.expectSignedIn(
                try await api.post("/oauth/auth_native_traditional", withFlow), email: "droid-signin@example.com",
                isNew: false)
            // No flow downloaded yet: `user` + `password` (flow_version is then null, and the SDK leaves it out).
            var staticCredentials = Self.merged(
                Self.android(form: "signInForm"),
                [
                    "user": "droid-signin@example.com", "password": Self.password, "refresh_secret": Self.androidSecret,
                ])
            staticCredentials.removeValue(forKey: "flow_version")
            Self.expectSignedIn(
                try await api.post("/oauth/auth_native_traditional", staticCredentials),
                email: "droid-signin@example.com", isNew: false)
        }
    }

    /// jump.ios (a delegate with `captureDidSucceedWithCode:`) and jump.android (a `SignInCodeHandler`) ask for
    /// `code_and_token` without PKCE; both still need the access token and read `authorization_code`.
    @Test func sdkCodeHandlersGetTokensAndACodeWithoutPKCE() async throws {
        try await withAPI { api, world in
            try await world.register("code-handler@example.com", password: Self.password)
            let calls: [(String, [String: String])] = [
                ("jump.ios", Self.ios(world, form: "signInForm", responseType: "code_and_token")),
                ("jump.android", Self.android(form: "signInForm", responseType: "code_and_token")),
            ]
            for (sdk, base) in calls {
                let fields = Self.merged(
                    base,
                    [
                        "signInEmailAddress": "code-handler@example.com", "currentPassword": Self.password,
                        "refresh_secret": Self.iosSecret,
                    ])
                let reply = try await api.post("/oauth/auth_native_traditional", fields)
                Self.expectSignedIn(reply, email: "code-handler@example.com", isNew: false, "\(sdk)")
                let code = try #require(reply["authorization_code"] as? String, "\(sdk): \(reply.json)")
                // Our addition, ignored by the SDKs: a token that only signs this chain out.
                #expect(reply["sign_out_token"] is String, "\(sdk)")
                // The app's backend redeems the code with the redirect URI the SDK sent.
                let exchanged = try await api.post(
                    "/oauth/token",
                    [
                        "grant_type": "authorization_code", "code": code, "redirect_uri": base["redirect_uri"]!,
                        "client_id": "demo-mobile-app",
                    ])
                #expect(exchanged.stat == "ok" && exchanged["access_token"] is String, "\(sdk): \(exchanged.json)")
            }
            // `code` alone (the caller gets no tokens) still needs PKCE from a public client.
            let codeOnly = Self.merged(
                Self.android(form: "signInForm", responseType: "code"),
                [
                    "signInEmailAddress": "code-handler@example.com", "currentPassword": Self.password,
                ])
            let refused = try await api.post("/oauth/auth_native_traditional", codeOnly)
            #expect(refused.code == 100 && refused["argument"] as? String == "code_challenge")
        }
    }

    // MARK: - /oauth/register_native_traditional

    /// JRCapture.registerNewUser, then handleRegistrationResponse: needs `access_token`, then fetches `/entity`
    /// with only the token and reads `result`.
    @Test func jumpIOSRegistrationThenEntityAsSent() async throws {
        try await withAPI { api, world in
            let fields = Self.merged(Self.ios(world, form: "registrationForm"), Self.registrationFields("ios-new@example.com"))
                .merging(["refresh_secret": Self.iosSecret]) { _, new in new }
            let reply = try await api.post("/oauth/register_native_traditional", fields)
            Self.expectSignedIn(reply, email: "ios-new@example.com", isNew: true)
            let token = try #require(reply["access_token"] as? String)
            let entity = try await api.post("/entity", ["access_token": token])
            #expect(entity.stat == "ok")
            Self.expectCaptureRecord(entity["result"], email: "ios-new@example.com")
            // Registering the address again: 380 in Janrain's shape (jump.ios reads it as a form error).
            Self.expectJanrainError(try await api.post("/oauth/register_native_traditional", fields), code: 380)
        }
    }

    @Test func jumpAndroidRegistrationAsSent() async throws {
        try await withAPI { api, world in
            let fields = Self.merged(Self.android(form: "registrationForm"), Self.registrationFields("droid-new@example.com"))
                .merging(["refresh_secret": Self.androidSecret]) { _, new in new }
            Self.expectSignedIn(
                try await api.post("/oauth/register_native_traditional", fields), email: "droid-new@example.com",
                isNew: true)
            var invalid = Self.merged(Self.android(form: "registrationForm"), Self.registrationFields("not-an-address"))
            invalid["refresh_secret"] = Self.androidSecret
            let refused = try await api.post("/oauth/register_native_traditional", invalid)
            Self.expectJanrainError(refused, code: 390)
            #expect((refused["invalid_fields"] as? [String: Any])?["emailAddress"] is [String])
        }
    }

    /// Older jump.ios (before `flow`): `flow_name`, `response_type=token`, `redirect_uri` = domain + `/cmeu`.
    @Test func olderJumpIOSRegistrationWithFlowNameAndCmeuRedirect() async throws {
        try await withAPI { api, world in
            var fields = Self.merged(Self.ios(world, form: "registrationForm"), Self.registrationFields("old-ios@example.com"))
            fields["flow_name"] = fields.removeValue(forKey: "flow")
            fields["redirect_uri"] = world.service.settings.resolvedPublicOrigin + "/cmeu"
            Self.expectSignedIn(
                try await api.post("/oauth/register_native_traditional", fields), email: "old-ios@example.com",
                isNew: true)
        }
    }

    // MARK: - /oauth/refresh_access_token

    /// CaptureRecord.refreshAccessToken reads `access_token`; Jump.fetchCaptureUserFromServer sends the same
    /// parameters and needs `capture_user` as well.
    @Test func jumpAndroidRefreshAndFetchCaptureUserAsSent() async throws {
        try await withAPI { api, world in
            var fields = Self.merged(Self.android(form: "registrationForm"), Self.registrationFields("droid-refresh@example.com"))
            fields["refresh_secret"] = Self.androidSecret
            var token = try #require(try await api.post("/oauth/register_native_traditional", fields)["access_token"] as? String)
            for call in ["refreshAccessToken", "fetchCaptureUserFromServer"] {
                world.time.advance(by: 120)
                let date = SignedRefreshTests.date(world.time.now())
                let reply = try await api.post(
                    "/oauth/refresh_access_token",
                    [
                        "access_token": token, "date": date,
                        "signature": SignedRefreshTests.signature(date: date, token: token, secret: Self.androidSecret),
                        "client_id": "demo-mobile-app", "locale": "en-US",
                    ])
                #expect(reply.stat == "ok", "\(call): \(reply.json)")
                let fresh = try #require(reply["access_token"] as? String, "\(call)")
                #expect(fresh != token && reply["expires_in"] is Int, "\(call)")
                Self.expectCaptureRecord(reply["capture_user"], email: "droid-refresh@example.com", "\(call)")
                #expect(reply["refresh_secret"] == nil, "the secret is the client's; it is never sent back")
                token = fresh
            }
        }
    }
}
