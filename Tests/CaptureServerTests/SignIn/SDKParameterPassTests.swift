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

    // MARK: - /oauth/forgot_password_native, /oauth/verify_email_native

    @Test func forgotPasswordAsBothSDKsSendIt() async throws {
        try await withAPI { api, world in
            try await world.register("forgot@example.com", password: Self.password)
            // jump.ios: always response_type=token, flow and flow_version; the field from the flow's form.
            let ios = Self.merged(Self.ios(world, form: "forgotPasswordForm"), ["signInEmailAddress": "forgot@example.com"])
            // jump.android: response_type follows the sign-in handler (code_and_token with a code handler);
            // flow_version, flow and form only when known.
            var android = Self.merged(
                Self.android(form: "forgotPasswordForm", responseType: "code_and_token"),
                ["signInEmailAddress": "forgot@example.com"])
            android.removeValue(forKey: "flow_version")
            for (sdk, fields) in [("jump.ios", ios), ("jump.android", android)] {
                let reply = try await api.post("/oauth/forgot_password_native", fields)
                #expect(reply.text == #"{"stat":"ok"}"#, "\(sdk): \(reply.json)")
            }
            #expect(try await world.service.listMail().filter { $0.kind == .passwordReset }.count == 2)
        }
    }

    /// jump.ios builds it in JRCaptureUIRequestBuilder (client_id, flow, flow_version, locale, response_type=token,
    /// redirect_uri, form); jump.android in getResendEmailVerificationConnection.
    @Test func resendVerificationAsBothSDKsSendIt() async throws {
        try await withAPI { api, world in
            try await world.register("resend@example.com", password: Self.password)
            let ios = Self.merged(Self.ios(world, form: "resendVerificationForm"), ["emailAddress": "resend@example.com"])
            let android = Self.merged(Self.android(form: "resendVerificationForm"), ["emailAddress": "resend@example.com"])
            for (sdk, fields) in [("jump.ios", ios), ("jump.android", android)] {
                let reply = try await api.post("/oauth/verify_email_native", fields)
                #expect(reply.text == #"{"stat":"ok"}"#, "\(sdk): \(reply.json)")
            }
            // The registration's code plus one per resend.
            #expect(try await world.service.listMail().filter { $0.kind == .emailVerification }.count == 3)
        }
    }

    // MARK: - /oauth/update_profile_native

    /// JRCapture.updateProfileForUser and Capture.getUpdateUserProfileConnection: the edit form's fields from the
    /// record plus client_id, access_token, locale, form, flow, flow_version. Both read only `stat`.
    @Test func updateProfileAsBothSDKsSendIt() async throws {
        try await withAPI { api, world in
            let token = try #require(try await world.register("profile-sdk@example.com", password: Self.password).grant)
                .accessToken
            for (sdk, name) in [("jump.ios", "Ios Name"), ("jump.android", "Droid Name")] {
                let reply = try await api.post(
                    "/oauth/update_profile_native",
                    [
                        "client_id": "demo-mobile-app", "access_token": token, "locale": "en-US", "form": "editProfileForm",
                        "flow": Self.flow, "flow_version": Self.flowVersion,
                        "displayName": name, "firstName": "Pro", "lastName": "File", "emailAddress": "profile-sdk@example.com",
                        "birthdate": "1991-02-03", "phone": "",
                    ])
                #expect(reply.stat == "ok", "\(sdk): \(reply.json)")
                #expect(try await world.service.entity(accessToken: token).displayName == name, "\(sdk)")
            }
            let expired = try await api.post(
                "/oauth/update_profile_native",
                [
                    "client_id": "demo-mobile-app", "access_token": "not-a-token", "locale": "en-US", "form": "editProfileForm",
                    "flow": Self.flow, "displayName": "x",
                ])
            Self.expectJanrainError(expired, code: 200)
        }
    }

    // MARK: - /entity

    /// jump.ios getCaptureUserWithToken / getCaptureObjectAtPath and jump.android performUpdateSignedUserData.
    @Test func entityAsBothSDKsFetchIt() async throws {
        try await withAPI { api, world in
            let token = try #require(try await world.register("entity-sdk@example.com", password: Self.password).grant)
                .accessToken
            let whole = try await api.post("/entity", ["access_token": token])
            #expect(whole.stat == "ok")
            Self.expectCaptureRecord(whole["result"], email: "entity-sdk@example.com")
            let record = try #require(whole["result"] as? [String: Any])
            #expect(Self.isJanrainDate(record["lastLogin"]) || record["lastLogin"] is NSNull)
            // jump.ios `startAccountUnLinking` reads `result.profiles`; a traditional account has none to list.
            #expect(record["profiles"] == nil || record["profiles"] is [Any] || record["profiles"] is NSNull)
            let one = try await api.post("/entity", ["access_token": token, "attribute_name": "/email"])
            #expect(one.stat == "ok" && one["result"] as? String == "entity-sdk@example.com")
            // The SDKs' stale-token handling keys on these codes.
            Self.expectJanrainError(try await api.post("/entity", ["access_token": "made-up"]), code: 200)
            world.time.advance(by: 3601)
            Self.expectJanrainError(try await api.post("/entity", ["access_token": token]), code: 414)
        }
    }

    // MARK: - /entity.update, /entity.replace (jump.ios, raw bodies)

    /// JRCaptureApidInterface builds these bodies by hand: a leading `&`, `attributes` percent-escaped,
    /// `access_token` and `attribute_name` as they are, `include_record=true`. NSURLRequest sends its default
    /// form content type.
    @Test func jumpIOSHandBuiltEntityBodiesAreAccepted() async throws {
        try await withAPI { api, world in
            let token = try #require(try await world.register("ios-entity@example.com", password: Self.password).grant)
                .accessToken
            func escaped(_ json: String) -> String {
                var allowed = CharacterSet.urlQueryAllowed
                allowed.remove(charactersIn: ":#[]@!$&'()*+,;=")
                return json.addingPercentEncoding(withAllowedCharacters: allowed)!
            }
            // updateObject at a path.
            let update =
                "&attributes=\(escaped(#"{"city":"Lyon","zip":"69001"}"#))&access_token=\(token)"
                + "&include_record=true&attribute_name=/primaryAddress"
            let updated = try await api.post("/entity.update", raw: ByteBuffer(string: update))
            #expect(updated.stat == "ok", "\(updated.json)")
            let address = (updated["result"] as? [String: Any])?["primaryAddress"] as? [String: Any]
            #expect(address?["city"] as? String == "Lyon")
            // updateObject at the root (no attribute_name).
            let root = "&attributes=\(escaped(#"{"givenName":"Root + Branch"}"#))&access_token=\(token)&include_record=true"
            let rooted = try await api.post("/entity.update", raw: ByteBuffer(string: root))
            #expect((rooted["result"] as? [String: Any])?["givenName"] as? String == "Root + Branch")
            // replaceArray: a plural at its path; the elements come back with ids.
            let replace =
                "&attributes=\(escaped(#"[{"value":"https://img.example/one.jpg"},{"value":"https://img.example/two.jpg"}]"#))&access_token=\(token)"
                + "&include_record=true&attribute_name=/photos"
            let replaced = try await api.post("/entity.replace", raw: ByteBuffer(string: replace))
            #expect(replaced.stat == "ok", "\(replaced.json)")
            let photos = (replaced["result"] as? [String: Any])?["photos"] as? [[String: Any]]
            #expect(photos?.count == 2 && photos?.allSatisfy { $0["id"] is Int } == true)
            Self.expectCaptureRecord(replaced["result"], email: "ios-entity@example.com")
        }
    }

    // MARK: - /entity.update, /entity.replace, /entity.delete (jump.android CaptureRecord.synchronize)

    @Test func jumpAndroidSynchronizeChangesAsSent() async throws {
        try await withAPI { api, world in
            let token = try #require(try await world.register("droid-sync@example.com", password: Self.password).grant)
                .accessToken
            // ApidUpdate at the root: `value` only; at a sub-entity: `value` + `attribute_name`.
            #expect(
                try await api.post("/entity.update", ["value": #"{"givenName":"Sync"}"#, "access_token": token]).stat == "ok")
            let sub = try await api.post(
                "/entity.update", ["value": #"{"city":"Graz"}"#, "attribute_name": "/primaryAddress", "access_token": token])
            #expect(sub.stat == "ok", "\(sub.json)")
            // ApidReplace of a plural, then ApidDelete of one element.
            let replaced = try await api.post(
                "/entity.replace",
                [
                    "value": #"[{"value":"https://img.example/a.jpg"},{"value":"https://img.example/b.jpg"}]"#,
                    "attribute_name": "/photos",
                    "access_token": token,
                ])
            #expect(replaced.stat == "ok", "\(replaced.json)")
            let first = try #require(
                ((replaced["result"] as? [String: Any])?["photos"] as? [[String: Any]])?.first?["id"] as? Int)
            let deleted = try await api.post("/entity.delete", ["attribute_name": "/photos#\(first)", "access_token": token])
            #expect(deleted.stat == "ok", "\(deleted.json)")
            let record = try #require(try await api.post("/entity", ["access_token": token])["result"] as? [String: Any])
            #expect(record["givenName"] as? String == "Sync")
            #expect((record["primaryAddress"] as? [String: Any])?["city"] as? String == "Graz")
            #expect((record["photos"] as? [[String: Any]])?.map { $0["value"] as? String } == ["https://img.example/b.jpg"])
        }
    }

    // MARK: - the flow document

    /// jump.android's ApiConnection GETs with "?" + its (empty) parameters and reads the body only when the
    /// content type starts with application/json.
    @Test func jumpAndroidFlowDownloadWithItsEmptyQuery() async throws {
        try await withAPI { api, _ in
            let reply = try await api.get("/widget_data/flows/capture-bridge-demo/\(Self.flow)/HEAD/en-US.json?")
            #expect(reply.status == .ok)
            #expect(reply.headers[.contentType]?.lowercased().hasPrefix("application/json") == true)
            #expect(reply["version"] as? String == Self.flowVersion)
            // CaptureFlowUtils.getUserIdFieldName: the first email/text field of the form.
            let fields = try #require(reply["fields"] as? [String: [String: Any]])
            let forgot = fields["forgotPasswordForm"]?["fields"] as? [String]
            #expect(forgot?.contains { ["email", "text"].contains(fields[$0]?["type"] as? String) } == true)
        }
    }
}
