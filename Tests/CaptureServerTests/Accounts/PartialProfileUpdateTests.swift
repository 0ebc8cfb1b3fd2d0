import CaptureCore
import CaptureTestSupport
import Foundation
import Testing

/// Issue 49, item 5: a profile save changes the attributes whose fields it carries and no others, as Janrain's did
/// (its reference sends `displayName` alone with `form=editProfileForm`); an attribute is cleared only by sending its
/// field empty. SDK-era apps and scripts need not send every field the pages send.
@Suite struct PartialProfileUpdateTests {
    static func save(_ token: String, _ fields: [String: String], form: String = "editProfileForm") -> [String: String] {
        TestWorld.flowParameters(form: form, flow: "webViewProfile").merging(fields) { $1 }.merging(
            ["access_token": token]) { $1 }
    }

    @Test func aFieldLeftOutKeepsItsValueAndOneSentEmptyIsCleared() async throws {
        try await withAPI { api, world in
            let token = try #require(try await world.register("partial@example.com").grant?.accessToken)
            let renamed = try await api.post("/oauth/update_profile_native", Self.save(token, ["displayName": "Solo"]))
            #expect(renamed.stat == "ok", "\(renamed.json)")
            var user = try #require(try await world.service.store.users.find(email: "partial@example.com"))
            let record = try #require(
                try await api.post("/entity", ["access_token": token]).json["result"] as? [String: Any])
            #expect(record["displayName"] as? String == "Solo")
            #expect(record["givenName"] as? String == "Tess" && record["familyName"] as? String == "Ter", "\(record)")
            #expect(user.email == "partial@example.com", "a required field left out is no change, not an error")

            let cleared = try await api.post("/oauth/update_profile_native", Self.save(token, ["firstName": ""]))
            #expect(cleared.stat == "ok", "\(cleared.json)")
            let after = try #require(
                try await api.post("/entity", ["access_token": token]).json["result"] as? [String: Any])
            #expect(
                after["givenName"] is NSNull && after["familyName"] as? String == "Ter"
                    && after["displayName"] as? String == "Solo")

            // A required field sent empty is still refused, and the save writes nothing.
            let empty = try await api.post(
                "/oauth/update_profile_native", Self.save(token, ["emailAddress": "", "displayName": "Other"]))
            #expect(empty.code == 390 && (empty.json["invalid_fields"] as? [String: Any])?["emailAddress"] != nil)
            user = try #require(try await world.service.store.users.find(email: "partial@example.com"))
            #expect(user.displayName == "Solo")
        }
    }

    /// A password change is one whole form: a new password without the current one is the current one's 390.
    @Test func aPasswordChangeStillNeedsEveryFieldOfItsForm() async throws {
        try await withAPI { api, world in
            let token = try #require(try await world.register("whole@example.com").grant?.accessToken)
            let fields = ["newPassword": "another long one", "newPasswordConfirm": "another long one"]
            let reply = try await api.post("/oauth/update_profile_native", Self.save(token, fields, form: "changePasswordForm"))
            #expect(
                reply.code == 390 && (reply.json["invalid_fields"] as? [String: Any])?["currentPassword"] != nil, "\(reply.json)")
            let signIn = try await api.post(
                "/oauth/auth_native_traditional", TestWorld.signIn(email: "whole@example.com", password: "correct horse battery"))
            #expect(signIn.stat == "ok", "the password is unchanged")
        }
    }
}
