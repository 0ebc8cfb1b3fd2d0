import CaptureCore
import CaptureTestSupport
import Foundation
import Hummingbird
import Testing

@testable import CaptureServer

@Suite struct FlowPageTests {
    func settingsJSON(in html: String) throws -> [String: Any] {
        let start = try #require(html.range(of: #"<script type="application/json" id="janrain-settings">"#))
        let end = try #require(html.range(of: "</script>", range: start.upperBound..<html.endIndex))
        let json = String(html[start.upperBound..<end.lowerBound])
        return try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    }

    @Test(arguments: ["webViewSignIn", "webViewProfile", "webViewDemo"])
    func everyFlowPageCarriesItsJanrainSettings(flow: String) async throws {
        try await withAPI { api, _ in
            let page = try await api.get("/flows/\(flow)?client_id=demo-mobile-app&locale=en-GB")
            #expect(page.status == .ok)
            #expect(page.headers[.contentType] == "text/html; charset=utf-8")
            let csp = try #require(page.headers[.contentSecurityPolicy])
            #expect(csp.contains("script-src 'self'"))
            #expect(!csp.contains("unsafe-inline"))
            #expect(page.headers[.init("Referrer-Policy")!] == "no-referrer")
            #expect(page.headers[.xContentTypeOptions] == "nosniff")
            #expect(page.headers[.init("X-Frame-Options")!] == "DENY")
            let settings = try settingsJSON(in: page.text)
            #expect(settings["popup"] as? Bool == false)
            #expect(settings["type"] as? String == "embed")
            #expect(settings["tokenAction"] as? String == "url")
            #expect(settings["packages"] as? [String] == ["login", "capture"])
            #expect((settings["tokenUrl"] as? String)?.hasPrefix("http://127.0.0.1:8080/") == true)
            let capture = try #require(settings["capture"] as? [String: Any])
            #expect(capture["redirectFlow"] as? Bool == true)
            #expect(capture["clientId"] as? String == "demo-mobile-app")
            #expect(capture["flowName"] as? String == flow)
            #expect(capture["flowVersion"] as? String == "20261122")
            #expect(capture["responseType"] as? String == "token")
            #expect(capture["locale"] as? String == "en-GB")
            #expect(capture["captureServer"] as? String == "http://127.0.0.1:8080")
            #expect(capture["appId"] is String)
            #expect(capture["registerFlow"] is String)
            #expect(!page.text.contains("{*"), "every Janrain tag was expanded")
            for script in ["janrain-settings.js", "janrain-bridge.js", "capture-ui.js"] {
                #expect(page.text.contains("src=\"/flows/assets/\(script)\""))
            }
        }
    }

    @Test func formsAndFieldsUseTheJanrainNames() async throws {
        try await withAPI { api, _ in
            let page = try await api.get("/flows/webViewSignIn?client_id=demo-mobile-app").text
            #expect(page.contains(#"id="signIn""#))
            #expect(page.contains(#"id="returnTraditional""#))
            #expect(page.contains(#"id="traditionalRegistration""#))
            #expect(page.contains(#"<form name="signInForm""#))
            #expect(page.contains(#"<form name="registrationForm""#))
            for field in ["signInEmailAddress", "currentPassword", "emailAddress", "displayName", "firstName", "lastName", "newPassword", "newPasswordConfirm"] {
                #expect(page.contains(#"name="\#(field)""#), "\(field)")
            }
            #expect(page.contains(#"<button type="submit""#))
        }
    }

    @Test func unknownFlowIs404AndUnknownClientIs400WithAReason() async throws {
        try await withAPI { api, _ in
            let missing = try await api.get("/flows/nope?client_id=demo-mobile-app")
            #expect(missing.status == .notFound)
            #expect(missing.text.contains("nope"))
            let unknownClient = try await api.get("/flows/webViewSignIn?client_id=ghost")
            #expect(unknownClient.status == .badRequest)
            #expect(unknownClient.text.contains("not registered"))
            let noClient = try await api.get("/flows/webViewSignIn")
            #expect(noClient.status == .badRequest)
            #expect(noClient.text.contains("client_id"))
            let demoDefault = try await api.get("/flows/webViewDemo")
            #expect(demoDefault.status == .ok, "webViewDemo names a default client")
            let badLocale = try await api.get("/flows/webViewSignIn?client_id=demo-mobile-app&locale=%3Cscript%3E")
            #expect(badLocale.status == .badRequest)
            #expect(!badLocale.text.contains("<script>"))
        }
    }

    @Test func assetsAreCachedByETag() async throws {
        try await withAPI { api, _ in
            let first = try await api.get("/flows/assets/janrain-bridge.js")
            #expect(first.status == .ok)
            #expect(first.headers[.contentType] == "text/javascript; charset=utf-8")
            let etag = try #require(first.headers[.eTag])
            let again = try await api.get("/flows/assets/janrain-bridge.js", headers: [.ifNoneMatch: etag])
            #expect(again.status == .notModified)
            #expect(try await api.get("/flows/assets/..%2Fpages%2FwebViewSignIn.html").status == .notFound)
        }
    }

    @Test func healthEndpoints() async throws {
        try await withAPI { api, _ in
            #expect(try await api.get("/health/live").status == .ok)
            let ready = try await api.get("/health/ready")
            #expect(ready.status == .ok)
            #expect(ready["status"] as? String == "ready")
        }
    }

    @Test func sharedScreensComeFromPartialsAndAMissingOneStopsStartUp() async throws {
        try await withAPI { api, _ in
            for flow in ["webViewSignIn", "webViewProfile", "webViewDemo"] {
                let page = try await api.get("/flows/\(flow)?client_id=demo-mobile-app").text
                #expect(page.contains(#"<section id="forgotPassword""#) && !page.contains("{* >"), "\(flow)")
            }
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("partials-\(UUID().uuidString)")
        #expect {
            _ = try FlowTemplate.include("<main>\n    {* >nowhere *}\n</main>", file: "page.html", partials: directory)
        } throws: { error in
            (error as? SettingsError).map { $0.file == "page.html" && $0.key == "{* >nowhere *}" } ?? false
        }
    }

    @Test func aFormMayNameItsFieldsItsOwnWayInSettings() async throws {
        try await withAPI { api, _ in
            let page = try await api.get("/flows/webViewProfile?client_id=demo-mobile-app").text
            for label in ["Current password", "New password", "Confirm new password"] {
                #expect(page.contains(">\(label)</label>"), "\(label)")
            }
            // The registration form keeps the field's own label.
            let signIn = try await api.get("/flows/webViewSignIn?client_id=demo-mobile-app").text
            #expect(signIn.contains(#"<label for="capture_registrationForm_newPassword">Password</label>"#))
        }
    }
}
