import CaptureCore
import CaptureTestSupport
import Foundation
import Testing

/// Issue 31, item 5: Janrain's `consents` object. The person ticks or unticks `marketingConsent` (registration,
/// editProfile) or writes `granted` through their token; only the service writes `updated` and `clientId`, and only
/// when the choice changes, so the record says when and through which app the person last decided.
@Suite struct MarketingConsentTests {
    static func profile(_ token: String, consent: String?) -> [String: String] {
        var fields = TestWorld.flowParameters(form: "editProfileForm", flow: "webViewProfile").merging([
            "access_token": token, "emailAddress": "reader@example.com", "displayName": "Reader",
        ]) { $1 }
        fields["marketingConsent"] = consent
        return fields
    }

    static func marketing(_ api: API, _ token: String) async throws -> [String: Any]? {
        let record = try #require(try await api.post("/entity", ["access_token": token]).json["result"] as? [String: Any])
        return (record["consents"] as? [String: Any])?["marketing"] as? [String: Any]
    }

    @Test func registrationRecordsTheChoiceWithItsClientAndTimeAndLeavesOutWhatWasNotAsked() async throws {
        try await withAPI { api, world in
            var ticked = TestWorld.registration(email: "yes@example.com")
            ticked["marketingConsent"] = "true"
            let yes = try await api.post("/oauth/register_native_traditional", ticked)
            let yesToken = try #require(yes.json["access_token"] as? String)
            let given = try #require(try await Self.marketing(api, yesToken))
            #expect(given["granted"] as? Bool == true && given["clientId"] as? String == "demo-mobile-app", "\(given)")
            #expect(given["updated"] as? String == CaptureDate.format(world.time.now()))

            // The page sends an unticked box as false: a choice, stamped like any other.
            var unticked = TestWorld.registration(email: "no@example.com")
            unticked["marketingConsent"] = "false"
            let no = try await api.post("/oauth/register_native_traditional", unticked)
            let noToken = try #require(no.json["access_token"] as? String)
            let declined = try #require(try await Self.marketing(api, noToken))
            #expect(declined["granted"] as? Bool == false && declined["updated"] is String)

            // An app that does not know the box says nothing about it.
            let silent = try await api.post(
                "/oauth/register_native_traditional", TestWorld.registration(email: "app@example.com"))
            let silentToken = try #require(silent.json["access_token"] as? String)
            let unasked = try await Self.marketing(api, silentToken)
            #expect(
                unasked?["granted"] as? Bool == nil && unasked?["updated"] as? String == nil, "\(String(describing: unasked))")
        }
    }

    @Test func onlyAChangedChoiceIsStampedAndOnlyTheServiceStampsIt() async throws {
        try await withAPI { api, world in
            let registered = try await world.register("reader@example.com")
            let token = try #require(registered.grant?.accessToken)
            #expect(try await api.post("/oauth/update_profile_native", Self.profile(token, consent: "true")).stat == "ok")
            let first = try #require(try await Self.marketing(api, token))
            #expect(first["granted"] as? Bool == true)

            // Saving the profile again with the box as it was keeps the stamp; so does an app that leaves it out.
            world.time.advance(by: 600)
            #expect(try await api.post("/oauth/update_profile_native", Self.profile(token, consent: "true")).stat == "ok")
            #expect(try await api.post("/oauth/update_profile_native", Self.profile(token, consent: nil)).stat == "ok")
            let kept = try #require(try await Self.marketing(api, token))
            #expect(kept["granted"] as? Bool == true && kept["updated"] as? String == first["updated"] as? String)

            // Unticking withdraws, stamped now.
            world.time.advance(by: 600)
            #expect(try await api.post("/oauth/update_profile_native", Self.profile(token, consent: "false")).stat == "ok")
            let withdrawn = try #require(try await Self.marketing(api, token))
            #expect(withdrawn["granted"] as? Bool == false)
            #expect(withdrawn["updated"] as? String == CaptureDate.format(world.time.now()))

            // The person's token cannot write the stamp itself, alone or beside a choice.
            for forged in [
                #"{"consents":{"marketing":{"updated":"2001-01-01 00:00:00 +0000"}}}"#,
                #"{"consents":{"marketing":{"granted":true,"clientId":"another-app"}}}"#,
            ] {
                let refused = try await api.post("/entity.update", EntityAPITests.ios(token, forged))
                #expect(refused.stat == "error", "\(refused.json)")
            }
            #expect(try await Self.marketing(api, token)?["granted"] as? Bool == false, "nothing of a refused write stays")

            // Granting through the API is stamped with the token's client.
            world.time.advance(by: 60)
            let granted = try await api.post(
                "/entity.update", EntityAPITests.ios(token, #"{"consents":{"marketing":{"granted":true}}}"#))
            #expect(granted.stat == "ok", "\(granted.json)")
            let again = try #require(try await Self.marketing(api, token))
            #expect(again["granted"] as? Bool == true && again["clientId"] as? String == "demo-mobile-app")
            #expect(again["updated"] as? String == CaptureDate.format(world.time.now()))

            // Each decision is an audit row; saves that changed nothing are not.
            let user = try #require(try await world.service.store.users.find(email: "reader@example.com"))
            let rows = try await world.service.audit.auditLog(AuditFilter(action: "user.consent_changed", target: user.id))
            #expect(rows.compactMap(\.detail).sorted() == ["marketing granted", "marketing granted", "marketing withdrawn"])

            // The data download carries the choice and its stamp.
            let export = try #require(
                try await api.post("/account/export", ["access_token": token]).json["export"] as? [String: Any])
            let exported = ((export["record"] as? [String: Any])?["consents"] as? [String: Any])?["marketing"] as? [String: Any]
            #expect(exported?["granted"] as? Bool == true && exported?["updated"] as? String == again["updated"] as? String)
        }
    }
}
