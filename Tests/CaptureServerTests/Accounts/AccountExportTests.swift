import CaptureCore
import CaptureTestSupport
import Foundation
import HTTPTypes
import Testing

/// Issue 31: "Download my data" as a host calls it: one document with the record, linked sign-ins, sessions and the
/// account's history, in the reply or mailed to the account's own address; nothing secret in it.
@Suite struct AccountExportTests {
    @Test func theDocumentHoldsTheRecordSessionsAndHistoryAndNoSecret() async throws {
        try await withAPI { api, world in
            let registered = try await world.register("mine@example.com")
            var headers = HTTPFields()
            headers[.userAgent] = SessionListTests.iPhone
            let signIn = try await api.post(
                "/oauth/auth_native_traditional",
                TestWorld.signIn(email: "mine@example.com", password: SessionListTests.password), headers: headers)
            let token = try #require(signIn.json["access_token"] as? String)
            let refresh = try #require(signIn.json["refresh_token"] as? String)
            let registration = try #require(registered.grant?.accessToken)
            let ended = try await api.post("/sessions/end_others", ["access_token": token])
            #expect(ended.stat == "ok")
            try await world.service.store.identities.link(
                LinkedIdentity(
                    provider: "example", subject: "42", userID: registered.user.id, email: "mine@id.example", linkedAt: Date()))

            let reply = try await api.post("/account/export", ["access_token": token])
            let export = try #require(reply.json["export"] as? [String: Any], "\(reply.json)")
            #expect(export["format"] as? String == AccountExport.currentFormat)
            #expect((export["record"] as? [String: Any])?["email"] as? String == "mine@example.com")
            let sessions = try #require(export["sessions"] as? [[String: Any]])
            #expect(sessions.count == 1 && sessions[0]["device"] as? String == "iPhone · Safari" && sessions[0]["id"] == nil)
            let linked = try #require(export["linked_accounts"] as? [[String: Any]])
            #expect(linked.count == 1 && linked[0]["identifier"] as? String == "example:42")
            #expect(export["second_factor"] as? Bool == false)
            let actions = try #require(export["audit"] as? [[String: Any]]).compactMap { $0["action"] as? String }
            #expect(actions.contains("session.end_others"), "\(actions)")
            // Nothing that works as a credential or reveals one.
            let text = reply.text
            let user = try await world.service.admin.findUser("mine@example.com")
            for secret in [token, refresh, registration, try #require(user.passwordHash), SessionListTests.password] {
                #expect(!text.contains(secret))
            }
            #expect(!text.contains("passwordHash") && !text.contains("refresh_secret") && !text.contains("publicKey"))
            // The download is itself in the history.
            let logged = try await world.service.audit.auditLog(AuditFilter(target: user.id)).first
            #expect(logged?.action == "account.export" && logged?.detail == "downloaded")

            let refused = try await api.post("/account/export", ["access_token": registration])
            #expect(refused.stat == "error" && refused.json["export"] == nil)
        }
    }

    @Test func theMailGoesToTheAccountsOwnAddressInItsLanguage() async throws {
        try await withAPI { api, world in
            let registered = try await world.register("post@example.com")
            let token = try #require(registered.grant?.accessToken)
            let reply = try await api.post("/account/export_mail", ["access_token": token, "locale": "de-DE"])
            #expect(reply.stat == "ok", "\(reply.json)")
            let mail = try #require(try await world.service.store.outbox.list(limit: 10).first { $0.kind == .accountData })
            #expect(mail.recipient == "post@example.com" && mail.userID == registered.user.id)
            #expect(mail.subject == "Ihre Daten")
            #expect(mail.text?.contains(AccountExport.currentFormat) == true && mail.text?.contains(token) == false)
            #expect(mail.html?.contains("<pre") == true && mail.html?.contains("&quot;post@example.com&quot;") == true)
            #expect(try await api.post("/account/export_mail", [:]).stat == "error")
        }
    }
}
