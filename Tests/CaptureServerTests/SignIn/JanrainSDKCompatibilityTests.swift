import CaptureCore
import CaptureTestSupport
import Foundation
import GRDB
import Testing

/// The parameters Janrain's mobile SDKs (jump.ios, jump.android) actually send work unchanged.
@Suite struct JanrainSDKCompatibilityTests {
    @Test func signInAcceptsTheSDKsExtraParameters() async throws {
        try await withAPI { api, world in
            try await world.register("sdk@example.com")
            var fields = TestWorld.signIn(email: "sdk@example.com", password: "correct horse battery")
            fields["flow_name"] = fields.removeValue(forKey: "flow")  // older jump.ios
            fields["bp_channel"] = "https://bp.example/v1/bus/x/channel/1"
            fields["flow_version"] = "20260101"
            fields["refresh_secret"] = "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678"
            fields["redirect_uri"] = "http://android.library"
            let reply = try await api.post("/oauth/auth_native_traditional", fields)
            #expect(reply.stat == "ok")
            #expect(reply["access_token"] is String)
        }
    }

    /// jump.android reads the body only of a 2xx reply: every Capture error a caller can act on is HTTP 200.
    @Test func applicationErrorsAnswerHTTP200() async throws {
        try await withAPI { api, world in
            let token = try await world.register("http200@example.com").grant!.accessToken
            var noClient = TestWorld.signIn(email: "http200@example.com", password: "x")
            noClient["client_id"] = "ghost-app"
            var missing = TestWorld.signIn(email: "http200@example.com", password: "x")
            missing.removeValue(forKey: "form")
            let replies: [(Int, Reply)] = [
                (100, try await api.post("/oauth/auth_native_traditional", missing)),
                (
                    210,
                    try await api.post(
                        "/oauth/auth_native_traditional", TestWorld.signIn(email: "http200@example.com", password: "wrong one"))
                ),
                (
                    380,
                    try await api.post("/oauth/register_native_traditional", TestWorld.registration(email: "http200@example.com"))
                ),
                (390, try await api.post("/oauth/register_native_traditional", TestWorld.registration(email: "not-an-address"))),
                (402, try await api.post("/oauth/auth_native_traditional", noClient)),
                (200, try await api.post("/entity", ["access_token": "made-up"])),
            ]
            for (code, reply) in replies {
                #expect(reply.code == code)
                #expect(reply.status == .ok, "code \(code)")
                #expect(reply.stat == "error")
            }
            world.time.advance(by: 3601)
            let expired = try await api.post("/entity", ["access_token": token])
            #expect(expired.code == 414 && expired.status == .ok)
        }
    }

    @Test func iosEntityUpdateWithIncludeRecord() async throws {
        try await withAPI { api, world in
            let token = try await world.register("ios@example.com").grant!.accessToken
            let reply = try await api.post(
                "/entity.update",
                ["access_token": token, "attributes": #"{"givenName":"Ios"}"#, "include_record": "true"])
            #expect(reply.stat == "ok")
            #expect((reply["result"] as? [String: Any])?["givenName"] as? String == "Ios")
        }
    }

    @Test func androidEntityUpdateWithValueAndAttributeName() async throws {
        try await withAPI { api, world in
            let token = try await world.register("android@example.com").grant!.accessToken
            let whole = try await api.post("/entity.update", ["access_token": token, "value": #"{"familyName":"Droid"}"#])
            #expect(whole.stat == "ok")
            let one = try await api.post(
                "/entity.update", ["access_token": token, "attribute_name": "/displayName", "value": #""Andy""#])
            #expect(one.stat == "ok")
            let user = try await world.service.profile.entity(accessToken: token)
            #expect(user.familyName == "Droid" && user.displayName == "Andy")

            let both = try await api.post("/entity.update", ["access_token": token, "value": "{}", "attributes": "{}"])
            #expect(both.code == 200)
            let notWritable = try await api.post(
                "/entity.update", ["access_token": token, "attribute_name": "uuid", "value": #""x""#])
            #expect(notWritable.code == 360 && notWritable["error"] as? String == "constraint_violation")
            #expect(notWritable["attribute_name"] as? String == "uuid")
        }
    }

    @Test func refreshSecretFollowsTheChainThroughRotation() async throws {
        try await withAPI { api, world in
            var fields = TestWorld.registration(email: "secret@example.com")
            fields["refresh_secret"] = "0123456789abcdef0123456789abcdef01234567"
            let registered = try await api.post("/oauth/register_native_traditional", fields)
            let refresh = try #require(registered["refresh_token"] as? String)
            let rotated = try await api.post(
                "/oauth/token", ["grant_type": "refresh_token", "refresh_token": refresh, "client_id": "demo-mobile-app"])
            #expect(rotated.stat == "ok")
            let secrets = try await world.service.store.tokens.list(TokenFilter()).map(\.refreshSecret)
            #expect(secrets.count == 4)
            #expect(secrets.allSatisfy { $0 == "0123456789abcdef0123456789abcdef01234567" })
        }
    }

    @Test func signInTakesTheStaticCredentialNamesSDKsSendWithoutADownloadedFlow() async throws {
        try await withAPI { api, world in
            try await world.register("static@example.com", password: "static credentials")
            // JRCaptureApidInterface.tradAuthParamsWithParams falls back to the caller's own keys.
            for name in ["user", "email", "username"] {
                var fields = TestWorld.flowParameters(form: "signInForm")
                fields[name] = "static@example.com"
                fields["password"] = "static credentials"
                fields["refresh_secret"] = "0123456789abcdef0123456789abcdef01234567"
                let reply = try await api.post("/oauth/auth_native_traditional", fields)
                #expect(reply.stat == "ok", "\(name): \(reply.json)")
            }
            var wrong = TestWorld.flowParameters(form: "signInForm")
            wrong["user"] = "static@example.com"
            wrong["password"] = "not it"
            #expect(try await api.post("/oauth/auth_native_traditional", wrong).code == 210)
            // Mixed with the form's own names, the aliases are not guessed at: the unknown field is refused.
            var mixed = TestWorld.signIn(email: "static@example.com", password: "static credentials")
            mixed["user"] = "static@example.com"
            #expect(try await api.post("/oauth/auth_native_traditional", mixed).code == 200)
        }
    }

    @Test func theFlowDocumentGivesTheSDKsTheirFieldNamesAndVersion() async throws {
        try await withAPI { api, world in
            let reply = try await api.get("/widget_data/flows/capture-bridge-demo/webViewSignIn/HEAD/en-US.json")
            #expect(reply.status == .ok && reply.json["version"] as? String == "20261122")
            let fields = try #require(reply.json["fields"] as? [String: [String: Any]])
            // Read it the way CaptureFlowUtils / JRCaptureApidInterface do.
            func formFields(_ form: String) -> [String] { fields[form]?["fields"] as? [String] ?? [] }
            #expect(fields["signInForm"]?["type"] as? String == "form")
            let signIn = formFields("signInForm")
            let password = try #require(signIn.first { fields[$0]?["type"] as? String == "password" })
            let user = try #require(signIn.first { $0 != password })
            let userID = formFields("forgotPasswordForm").first { ["email", "text"].contains(fields[$0]?["type"] as? String) }
            #expect(userID == "signInEmailAddress")
            #expect(fields["newPasswordConfirm"]?["schemaId"] as? String == "password")
            #expect(fields["emailAddress"]?["schemaId"] as? String == "email")
            #expect(fields["editProfileForm"] == nil, "only the flow's own forms")

            try await world.register("flowdoc@example.com", password: "flow document")
            var fields2 = TestWorld.flowParameters(form: "signInForm")
            fields2[user] = "flowdoc@example.com"
            fields2[password] = "flow document"
            fields2["flow_version"] = reply.json["version"] as? String
            #expect(try await api.post("/oauth/auth_native_traditional", fields2).stat == "ok")

            #expect(try await api.get("/widget_data/flows/capture-bridge-demo/webViewSignIn/20261122/de-DE.json").status == .ok)
            // jump.ios keeps the ETag and revalidates with If-None-Match.
            let first = try await api.get("/widget_data/flows/capture-bridge-demo/webViewSignIn/HEAD/en-US.json")
            let etag = try #require(first.headers[.eTag])
            #expect(etag.hasPrefix("\"") && etag.count > 10)
            let again = try await api.get(
                "/widget_data/flows/capture-bridge-demo/webViewSignIn/HEAD/en-US.json", headers: [.ifNoneMatch: etag])
            #expect(again.status == .notModified && again.text.isEmpty && again.headers[.eTag] == etag)
            let stale = try await api.get(
                "/widget_data/flows/capture-bridge-demo/webViewSignIn/HEAD/en-US.json", headers: [.ifNoneMatch: "\"old\""])
            #expect(stale.status == .ok && stale["version"] as? String == "20261122")
            let otherLocale = try await api.get("/widget_data/flows/capture-bridge-demo/webViewSignIn/HEAD/de-DE.json")
            #expect(otherLocale.headers[.eTag] != etag, "the locale is part of the document")
            // The labels speak the URL's locale (the SDKs show them in their own forms).
            let german = try #require(otherLocale.json["fields"] as? [String: [String: Any]])
            let catalog = world.service.catalog
            #expect(
                german["emailAddress"]?["label"] as? String
                    == catalog.localization.messages(for: "de").optionalText("field.emailAddress.label"))
            #expect(german["emailAddress"]?["label"] as? String != fields["emailAddress"]?["label"] as? String)
            for missing in [
                "other-app/webViewSignIn/HEAD/en-US.json", "capture-bridge-demo/nope/HEAD/en-US.json",
                "capture-bridge-demo/webViewSignIn/19990101/en-US.json", "capture-bridge-demo/webViewSignIn/HEAD/en-US",
            ] {
                let gone = try await api.get("/widget_data/flows/" + missing)
                #expect(gone.status == .notFound && gone.code == 310, "\(missing)")
            }
        }
    }

    @Test func signInTakesJanrainsStandardFlowNames() async throws {
        try await withAPI { api, world in
            try await world.register("standard@example.com", password: "standard flow names")
            // What Janrain-era pages and SDK configurations send for the standard registration flow.
            var fields = TestWorld.flowParameters(form: "userInformationForm")
            fields["traditionalSignIn_emailAddress"] = "standard@example.com"
            fields["traditionalSignIn_password"] = "standard flow names"
            #expect(try await api.post("/oauth/auth_native_traditional", fields).stat == "ok")
            fields["traditionalSignIn_password"] = "wrong"
            #expect(try await api.post("/oauth/auth_native_traditional", fields).code == 210)
        }
    }
}
