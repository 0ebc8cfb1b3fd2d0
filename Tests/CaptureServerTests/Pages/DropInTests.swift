import CaptureCore
import CaptureTestSupport
import Foundation
import Testing

/// What a Janrain customer's own page gets from the drop-in (docs/janrain-migration.md): the loader at Janrain's URL
/// forms, the flow its screens render from, and replies it may read from its own origin only.
@Suite struct DropInTests {
    @Test func theLoaderAnswersAtJanrainsURLFormsForAnyApp() async throws {
        try await withAPI { api, _ in
            for path in ["/load/capture-bridge-demo", "/load/wntnt6n5ejumrrdefdj59jz8g4", "/capturewidget/load.js", "/load.js"] {
                let reply = try await api.get(path)
                #expect(reply.status == .ok, "\(path)")
                #expect(reply.headers[.contentType]?.hasPrefix("text/javascript") == true, "\(path)")
                #expect(reply.text.contains("capture-dropin.js"), "\(path)")
            }
        }
    }

    @Test func theFlowSpeaksThePagesLanguageAndNamesEveryFieldAndForm() async throws {
        try await withAPI { api, world in
            let reply = try await api.get("/flows/standard/widget.json?client_id=demo-mobile-app&locale=de-DE")
            #expect(reply.status == .ok)
            let flow = try #require(reply["flow"] as? [String: Any])
            #expect(flow["name"] as? String == "webViewDemo", "Janrain's template name stands for the built-in flow")
            let fields = try #require(flow["fields"] as? [String: [String: Any]])
            let german = world.service.catalog.localization.messages(for: "de-DE")
            #expect(fields["signInButton"]?["label"] as? String == german.text("signIn.submit"))
            #expect(fields["signInEmailAddress"]?["schemaId"] as? String == "email")
            #expect(fields["traditionalSignIn_password"]?["type"] as? String == "password")
            // The rules a page may check first, each with the message the service itself answers.
            let rules = try #require(fields["newPassword"]?["validation"] as? [[String: Any]])
            let minLength = try #require(rules.first { $0["rule"] as? String == "minLength" })
            let tooShort = try await api.post(
                "/oauth/register_native_traditional",
                TestWorld.registration(email: "short@example.com", password: "short").merging(["locale": "de-DE"]) { $1 })
            let answered = (tooShort.json["invalid_fields"] as? [String: [String]])?["newPassword"]
            #expect(minLength["value"] as? Int == 8 && answered == [minLength["message"] as? String ?? ""])
            let forms = try #require(flow["forms"] as? [String: [String: Any]])
            #expect(
                forms["userInformationForm"]?["fields"] as? [String] == [
                    "traditionalSignIn_emailAddress", "traditionalSignIn_password",
                ])
            #expect((forms["changePasswordForm"]?["labels"] as? [String: String])?["newPassword"] != nil)
            let settings = try #require(reply["settings"] as? [String: Any])
            let capture = try #require(settings["capture"] as? [String: Any])
            #expect(
                ((capture["forms"] as? [String: Any])?["signInForm"] as? [String: Any])?["endpoint"] as? String
                    == "/oauth/auth_native_traditional")
            #expect((reply["messages"] as? [String: String])?["widget.back"] == german.text("widget.back"))
        }
    }

    @Test func anUnknownClientOrLocaleIsACaptureErrorAndAnUnknownFlowFallsBack() async throws {
        try await withAPI { api, _ in
            let noClient = try await api.get("/flows/standard/widget.json")
            #expect(noClient.status == .ok && noClient.code == 100)
            #expect(try await api.get("/flows/standard/widget.json?client_id=nobody").code == 402)
            // A flow name this service does not have is served by the Janrain fallback, which says so.
            let other = try await api.get("/flows/mulciberSignin/widget.json?client_id=demo-mobile-app")
            let flow = try #require(other["flow"] as? [String: Any])
            #expect(other.status == .ok && flow["name"] as? String == "webViewDemo")
            #expect(flow["fallbackFor"] as? String == "mulciberSignin")
            let named = try await api.get("/flows/standard/widget.json?client_id=demo-mobile-app")
            #expect((named["flow"] as? [String: Any])?["fallbackFor"] == nil)
            #expect(try await api.get("/flows/standard/widget.json?client_id=demo-mobile-app&locale=en_US!").code == 200)
        }
    }

    @Test func repliesAreReadableOnlyFromAnOriginAClientAllows() async throws {
        try await withAPI { api, world in
            _ = try await world.service.clientAdmin.addClient(
                id: "customer-site", name: nil, confidential: false, redirectURIs: ["https://www.example.com/signin"],
                allowedOrigins: ["https://www.example.com"], responseTypes: ["token"], legacyTokenURL: false)
            let path = "/flows/standard/widget.json?client_id=customer-site"
            let allowed = try await api.get(path, headers: [.origin: "https://www.example.com"])
            #expect(allowed.headers[.accessControlAllowOrigin] == "https://www.example.com")
            #expect(allowed.headers[.vary]?.contains("Origin") == true)
            #expect(allowed.headers[.accessControlAllowCredentials] == nil)
            for origin in [
                "https://evil.example", "https://www.example.com:8443", "null", "https://www.example.com.evil.example",
            ] {
                let other = try await api.get(path, headers: [.origin: origin])
                #expect(other.headers[.accessControlAllowOrigin] == nil, "\(origin)")
            }
            // A sign-in answer is readable, refusals included; the client's own origin rule still decides.
            let refused = try await api.post(
                "/oauth/auth_native_traditional", TestWorld.signIn(email: "a@example.com", password: "x"),
                headers: [.origin: "https://www.example.com"])
            #expect(refused.code == 403 && refused.headers[.accessControlAllowOrigin] == "https://www.example.com")
            // A client removed takes its origin with it.
            _ = try await world.service.clientAdmin.removeClient("customer-site")
            let gone = try await api.get(path, headers: [.origin: "https://www.example.com"])
            #expect(gone.headers[.accessControlAllowOrigin] == nil)
        }
    }
}
