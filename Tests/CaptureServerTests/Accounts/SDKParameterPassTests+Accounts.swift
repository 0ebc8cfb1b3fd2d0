import CaptureCore
import CaptureTestSupport
import Foundation
import Hummingbird
import Testing

/// Recovery, verification, profile and record calls as jump.ios and jump.android send them.
extension SDKParameterPassTests {
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
            #expect(try await world.service.admin.listMail().filter { $0.kind == .passwordReset }.count == 2)
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
            #expect(try await world.service.admin.listMail().filter { $0.kind == .emailVerification }.count == 3)
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
                #expect(try await world.service.profile.entity(accessToken: token).displayName == name, "\(sdk)")
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
