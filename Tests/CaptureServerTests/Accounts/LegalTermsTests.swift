import CaptureCore
import CaptureServer
import CaptureTestSupport
import Foundation
import Testing

/// Versioned documents a client requires (`legalDocuments`): registration refuses without them and records their
/// acceptance in Janrain's `legalAcceptances`; a new version stops the next sign-in, before any token, until
/// `/oauth/accept_terms` accepts it; the person's own token cannot write an acceptance.
@Suite struct LegalTermsTests {
    static func terms(_ version: String) -> [LegalDocument] {
        [
            LegalDocument(
                id: "terms", version: version, title: ["en": "Terms of Service", "de": "Nutzungsbedingungen"],
                url: "https://example.com/terms/\(version)"),
            LegalDocument(
                id: "partner-terms", version: "1", title: ["en": "Partner terms"], url: "https://example.com/partner",
                clients: ["another-app"]),
        ]
    }

    static func registration(_ email: String, accepting: String?, locale: String = "en-US") -> [String: String] {
        var fields = TestWorld.registration(email: email)
        fields["locale"] = locale
        fields["accept_documents"] = accepting
        return fields
    }

    @Test func registrationNeedsTheClientsDocumentsAndRecordsTheirAcceptance() async throws {
        try await withAPI(configure: { $0.legalDocuments = Self.terms("1") }) { api, world in
            let refused = try await api.post(
                "/oauth/register_native_traditional", Self.registration("new@example.com", accepting: nil, locale: "de-DE"))
            #expect(refused.code == 280 && refused.json["error"] as? String == "terms_not_accepted", "\(refused.json)")
            #expect(refused.json["terms_ticket"] == nil && refused.json["access_token"] == nil)
            let listed = try #require(refused.json["documents"] as? [[String: Any]])
            #expect(listed.map { $0["id"] as? String } == ["terms"], "only this client's documents")
            #expect(listed.first?["title"] as? String == "Nutzungsbedingungen" && listed.first?["version"] as? String == "1")
            #expect(try await world.service.store.users.find(email: "new@example.com") == nil, "nothing made")
            // An older version, or another document, is not the one required.
            let stale = try await api.post(
                "/oauth/register_native_traditional", Self.registration("new@example.com", accepting: "terms:0 partner-terms:1"))
            #expect(stale.code == 280)

            let made = try await api.post(
                "/oauth/register_native_traditional", Self.registration("new@example.com", accepting: "terms:1"))
            #expect(made.stat == "ok", "\(made.json)")
            let token = try #require(made.json["access_token"] as? String)
            let record = try #require(try await api.post("/entity", ["access_token": token]).json["result"] as? [String: Any])
            let acceptances = try #require(record["legalAcceptances"] as? [[String: Any]])
            let accepted = try #require(acceptances.first)
            #expect(acceptances.count == 1 && accepted["dateAccepted"] is String)
            #expect(accepted["legalAcceptanceId"] as? String == "terms" && accepted["version"] as? String == "1")
            #expect(accepted["clientId"] as? String == "demo-mobile-app")
            // The person's data download carries them.
            let export = try #require(
                try await api.post("/account/export", ["access_token": token]).json["export"] as? [String: Any])
            #expect(((export["record"] as? [String: Any])?["legalAcceptances"] as? [[String: Any]])?.count == 1)
            // Issue 48: the acceptance at registration is audited like any other, and the download lists it.
            let audited = try #require(export["audit"] as? [[String: Any]])
            #expect(
                audited.contains { $0["action"] as? String == "user.terms_accepted" && $0["detail"] as? String == "terms:1" },
                "\(audited)")

            // The person's own token cannot write one.
            let forged = try await api.post(
                "/entity.update",
                EntityAPITests.ios(token, #"{"legalAcceptances":[{"legalAcceptanceId":"terms","version":"9"}]}"#))
            #expect(forged.stat == "error", "\(forged.json)")
        }
    }

    @Test func aNewVersionStopsTheNextSignInUntilItIsAccepted() async throws {
        try await withAPI(configure: { $0.legalDocuments = Self.terms("1") }) { api, world in
            #expect(
                try await api.post(
                    "/oauth/register_native_traditional", Self.registration("kept@example.com", accepting: "terms:1")
                ).stat == "ok")
            // The operator publishes version 2.
            var settings = world.service.settings
            settings.legalDocuments = Self.terms("2")
            let service = await CaptureFeatures.make(
                settings: settings, catalog: world.service.catalog, store: world.service.store, time: world.time)
            let changed = API(router: try buildRouter(features: service))
            let signIn = TestWorld.signIn(email: "kept@example.com", password: "correct horse battery")
            let stopped = try await changed.post("/oauth/auth_native_traditional", signIn)
            #expect(stopped.code == 280 && stopped.json["access_token"] == nil, "\(stopped.json)")
            let ticket = try #require(stopped.json["terms_ticket"] as? String)
            #expect((stopped.json["documents"] as? [[String: Any]])?.first?["version"] as? String == "2")

            // Without accepting: a new ticket, still no token.
            let common = ["client_id": "demo-mobile-app", "locale": "en-US", "flow": "webViewSignIn"]
            let unaccepted = try await changed.post("/oauth/accept_terms", common.merging(["ticket": ticket]) { a, _ in a })
            #expect(unaccepted.code == 280 && unaccepted.json["access_token"] == nil)
            let next = try #require(unaccepted.json["terms_ticket"] as? String)
            #expect(next != ticket)
            let spent = try await changed.post(
                "/oauth/accept_terms", common.merging(["ticket": ticket, "accept_documents": "terms:2"]) { a, _ in a })
            #expect(spent.code == 200 && spent.json["argument"] as? String == "ticket", "a ticket is used once")
            let otherClient = try await changed.post(
                "/oauth/accept_terms",
                common.merging(["client_id": "demo-themed-app", "ticket": next, "accept_documents": "terms:2"]) { _, b in b })
            #expect(otherClient.stat == "error", "a ticket is the client's")

            let again = try #require(
                try await changed.post("/oauth/auth_native_traditional", signIn).json["terms_ticket"] as? String)
            let accepted = try await changed.post(
                "/oauth/accept_terms", common.merging(["ticket": again, "accept_documents": "terms:2"]) { a, _ in a })
            #expect(accepted.stat == "ok" && accepted.json["access_token"] is String, "\(accepted.json)")
            let record = try #require(
                try await changed.post("/entity", ["access_token": accepted.json["access_token"] as! String]).json["result"]
                    as? [String: Any])
            #expect((record["legalAcceptances"] as? [[String: Any]])?.compactMap { $0["version"] as? String } == ["1", "2"])
            // Accepted once, the next sign-in goes straight through.
            #expect(try await changed.post("/oauth/auth_native_traditional", signIn).json["access_token"] is String)
            // Each acceptance is a row: the registration's, then the new version's (newest first).
            let audit = try await world.service.store.audit.list(AuditFilter(action: "user.terms_accepted"))
            #expect(audit.map(\.detail) == ["terms:2", "terms:1"])
        }
    }

    @Test func theSocialRegistrationFormNeedsThemTooAndAThinOneStopsBeforeItsToken() async throws {
        try await SocialSignInTests.withProvider(configure: { $0.legalDocuments = Self.terms("1") }) {
            issuer, api, world, service in
            try await SocialSignInTests.provide(issuer, subject: "sam", claims: ["email": "sam@example.com"])
            let token = try #require(
                try await SocialSignInTests.roundTrip(api, subject: "sam").fragment["capture_social_token"])
            #expect(try await SocialSignInTests.authNative(api, token: token, thin: false).code == 310)
            var fields = TestWorld.flowParameters(form: "socialRegistrationForm")
            fields.merge([
                "token": token, "code_verifier": SocialSignInTests.verifier, "emailAddress": "sam@example.com",
                "displayName": "Sammy", "redirect_uri": SocialSignInTests.page,
            ]) { $1 }
            let refused = try await api.post("/oauth/register_native", fields)
            #expect(refused.code == 280 && refused.json["terms_ticket"] == nil, "\(refused.json)")
            #expect(try await service.store.users.find(email: "sam@example.com") == nil, "nothing made")
            fields["accept_documents"] = "terms:1"
            let made = try await api.post("/oauth/register_native", fields)
            #expect(made.stat == "ok" && made.json["access_token"] is String, "\(made.json)")

            // A thin registration makes the account from the provider's profile, then stops like a sign-in.
            try await SocialSignInTests.provide(
                issuer, subject: "tia", claims: ["email": "tia@example.com", "email_verified": true, "name": "Tia"])
            let thin = try #require(
                try await SocialSignInTests.roundTrip(api, subject: "tia").fragment["capture_social_token"])
            let stopped = try await SocialSignInTests.authNative(api, token: thin)
            #expect(stopped.code == 280 && stopped.json["access_token"] == nil, "\(stopped.json)")
            let ticket = try #require(stopped.json["terms_ticket"] as? String)
            let finished = try await api.post(
                "/oauth/accept_terms",
                [
                    "client_id": "demo-mobile-app", "flow": "webViewSignIn", "locale": "en-US", "ticket": ticket,
                    "accept_documents": "terms:1",
                ])
            #expect(finished.stat == "ok" && finished.json["is_new"] as? Bool == true, "\(finished.json)")
            // Both acceptances are audited: the social registration form's and the thin one's at accept_terms.
            for email in ["sam@example.com", "tia@example.com"] {
                let user = try #require(try await service.store.users.find(email: email))
                let rows = try await service.store.audit.list(AuditFilter(action: "user.terms_accepted", target: user.id))
                #expect(rows.map(\.detail) == ["terms:1"], "\(email)")
            }
        }
    }

    @Test func documentsAreCheckedAsSettingsAndNeedTheirPluralInTheSchema() throws {
        #expect(LegalDocument(id: "Terms!", version: "1", title: ["en": "T"], url: "https://e.example").problem() != nil)
        #expect(LegalDocument(id: "terms", version: "1 2", title: ["en": "T"], url: "https://e.example").problem() != nil)
        #expect(LegalDocument(id: "terms", version: "1", title: [:], url: "https://e.example").problem() != nil)
        #expect(LegalDocument(id: "terms", version: "1", title: ["en": "T"], url: "javascript:x").problem() != nil)
        #expect(LegalDocument(id: "terms", version: "1", title: ["en": "T"], url: "https://e.example").problem() == nil)
        #expect(LegalTerms.problem(documents: Self.terms("1"), schema: .emailOnly) != nil)
        #expect(LegalTerms.problem(documents: [], schema: .emailOnly) == nil)
        let document = Self.terms("1")[0]
        #expect(document.title(for: "de-AT") == "Nutzungsbedingungen" && document.title(for: "ar") == "Terms of Service")
    }
}
