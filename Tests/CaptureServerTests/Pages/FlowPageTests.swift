import CaptureCore
import CaptureOutbound
import CaptureTestSupport
import Crypto
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
            // No script or stylesheet to fetch before the first screen: capture-first.js and capture.css are in the
            // page, each allowed by its own hash and nothing else inline; the script names capture-rest.js by its
            // content-addressed URL (docs/adr/0073).
            #expect(!page.text.contains("<script src="))
            #expect(!page.text.contains("<link rel=\"stylesheet\""))
            let script = try inlineText(in: page.text, after: #"<script data-capture-rest="/flows/assets/capture-rest."#)
            #expect(script.hasPrefix("/* capture-first.js: joined at start-up"))
            let style = try inlineText(in: page.text, after: "<style>")
            #expect(style.contains(".capture_container"))
            #expect(csp.contains("script-src 'self' \(cspHash(script));"))
            #expect(csp.contains("style-src 'self' \(cspHash(style))"))
            #expect(csp.components(separatedBy: "'sha256-").count == 3, "those two texts, nothing else")
        }
    }

    /// The text of the element whose start tag begins with `prefix` (up to its `>`), to its end tag.
    func inlineText(in html: String, after prefix: String) throws -> String {
        let start = try #require(html.range(of: prefix))
        let open = try #require(html[start.lowerBound...].firstIndex(of: ">"))
        let body = html[html.index(after: open)...]
        let end = try #require(body.range(of: "</"))
        return String(body[..<end.lowerBound])
    }

    /// CSP's hash source of `text`, computed here apart from the service's.
    func cspHash(_ text: String) -> String {
        "'sha256-\(Data(SHA256.hash(data: Data(text.utf8))).base64EncodedString())'"
    }

    @Test func ifNoneMatchListsAreReadItemByItem() {
        let etag = "\"0123abcd\""
        for header in [etag, " \(etag)\t", "\"other\", \(etag)", "\(etag),\"other\"", "\"a\",,\t\(etag) ,\"b\""] {
            #expect(StaticAssets.Asset.list(header, contains: etag), "\(header)")
        }
        for header in ["", ",", "\"0123abc\"", "W/\(etag)", "0123abcd", "\"other\" \(etag)", "\(etag)x"] {
            #expect(!StaticAssets.Asset.list(header, contains: etag), "\(header)")
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
            for field in [
                "signInEmailAddress", "currentPassword", "emailAddress", "displayName", "firstName", "lastName", "newPassword",
                "newPasswordConfirm",
            ] {
                #expect(page.contains(#"name="\#(field)""#), "\(field)")
            }
            #expect(page.contains(#"<button type="submit""#))
        }
    }

    /// `capture.forms`: the call each form of the flow posts to and its fields' record attributes, from FormEndpoint
    /// and forms.json; the widget keeps no copy of either.
    @Test func theSettingsNameEachFormsCallAndItsFieldsAttributes() async throws {
        try await withAPI { api, _ in
            let profile = try settingsJSON(in: try await api.get("/flows/webViewProfile?client_id=demo-mobile-app").text)
            let forms = try #require((profile["capture"] as? [String: Any])?["forms"] as? [String: [String: Any]])
            #expect(forms["editProfileForm"]?["endpoint"] as? String == "/oauth/update_profile_native")
            #expect(
                forms["editProfileForm"]?["attributes"] as? [String: String] == [
                    "displayName": "displayName", "firstName": "givenName", "lastName": "familyName",
                    "emailAddress": "email", "birthdate": "birthday", "phone": "phone",
                    "marketingConsent": "consents.marketing.granted",
                ])
            #expect(forms["changePasswordForm"]?["attributes"] as? [String: String] == [:], "passwords are no attribute")
            #expect(forms["useVerificationCodeForm"]?["endpoint"] as? String == "/access/useVerificationCode")
            #expect(
                forms["useVerificationCodeForm"]?["parameters"] as? [String]
                    == ["verification_code", "email", "client_id", "locale", "flow"])
            #expect(
                forms["userInformationForm"]?["endpoint"] as? String == "/oauth/auth_native_traditional",
                "Janrain's older sign-in form")
            #expect(forms["registrationForm"] == nil, "not a form of webViewProfile")
            let signIn = try settingsJSON(in: try await api.get("/flows/webViewSignIn?client_id=demo-mobile-app").text)
            let signInForms = try #require((signIn["capture"] as? [String: Any])?["forms"] as? [String: [String: Any]])
            #expect(
                Set(signInForms.keys) == [
                    "signInForm", "userInformationForm", "registrationForm", "socialRegistrationForm", "forgotPasswordForm",
                    "resetPasswordForm", "resendVerificationForm", "useVerificationCodeForm", "checkResetCodeForm",
                ])
            #expect(signInForms["signInForm"]?["endpoint"] as? String == "/oauth/auth_native_traditional")
            #expect(signInForms["forgotPasswordForm"]?["attributes"] as? [String: String] == ["signInEmailAddress": "email"])
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
            // Readiness gives the database 2 s; a balancer polls it again. On a starved machine (PostgreSQL's first
            // query of a fresh pool under a load average of 6 here; two lanes of tests were seen to hold the process
            // for over a minute) polls can miss, so it is asked until it says ready, within `TestTiming.patience`.
            let deadline = ContinuousClock.now + TestTiming.patience
            var ready = try await api.get("/health/ready")
            while ready.status != .ok && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(200))
                ready = try await api.get("/health/ready")
            }
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

/// The social sign-in buttons (issue 8): rendered from the providers the service discovered, where a page writes
/// Janrain's `{| loginWidget |}` (and link buttons where it writes `{| linkAccountWidget |}`); none configured, no
/// section at all.
@Suite struct SocialButtonTests {
    static func providers(icon: String? = "provider-generic.svg") async -> SocialProviders {
        let (providers, problems) = await SocialProviders.discover(
            [
                SocialProviderSettings(
                    name: "acme", displayName: "Acme <ID>", authorizationEndpoint: "https://id.example/authorize",
                    tokenEndpoint: "https://id.example/token", userinfoEndpoint: "https://id.example/userinfo",
                    clientId: "capture", icon: icon)
            ], secrets: [:], transport: CurlProviderTransport())
        #expect(problems.isEmpty, "\(problems)")
        return providers
    }

    @Test func everySignInScreenListsTheProvidersAsButtonsWithAccessibleNames() async throws {
        let world = try await TestWorld.make()
        var service = world.service
        service = service.with(social: await Self.providers())
        do {
            let api = API(router: try buildRouter(features: service))
            for flow in ["webViewSignIn", "webViewProfile", "webViewDemo"] {
                let page = withoutContentAddresses(try await api.get("/flows/\(flow)?client_id=demo-mobile-app").text)
                #expect(!page.contains("{|"), "\(flow)")
                let button =
                    #"<button type="button" class="capture_btn capture_provider" data-capture-provider="acme">"#
                    + #"<img class="capture_provider_icon" src="/flows/assets/provider-generic.svg" alt="" width="24" height="24">"#
                    + "<span>Continue with Acme &lt;ID&gt;</span></button>"
                #expect(page.contains(button), "\(flow)")
                #expect(
                    page.components(separatedBy: "<span>Continue with ").count - 1
                        == (flow == "webViewSignIn" || flow == "webViewDemo" ? 3 : 1))
                // editProfile's linked-accounts section ({| linkAccountWidget |}) on the pages that have it.
                let link =
                    #"<button type="button" class="capture_btn capture_provider" data-capture-provider="acme" data-capture-link>"#
                    + #"<img class="capture_provider_icon" src="/flows/assets/provider-generic.svg" alt="" width="24" height="24">"#
                    + "<span>Link Acme &lt;ID&gt;</span></button>"
                #expect(page.components(separatedBy: link).count - 1 == (flow == "webViewSignIn" ? 0 : 1), "\(flow)")
                for screen in ["socialRegistration", "mergeAccounts", "traditionalAuthenticateMerge"] {
                    #expect(page.contains(#"<section id="\#(screen)""#), "\(flow) \(screen)")
                }
                #expect(page.contains(#"<form name="socialRegistrationForm""#))
                let settings = try FlowPageTests().settingsJSON(in: page)
                #expect(settings["providers"] as? [String] == ["acme"])
                #expect(settings["providerNames"] as? [String: String] == ["acme": "Acme <ID>"])
                #expect((settings["capture"] as? [String: Any])?["thinRegistration"] as? Bool == true)
                #expect(!page.contains("id.example"), "no provider endpoint or client id in the page")
            }
        }
    }

    @Test func noProviderNoSocialSection() async throws {
        try await withAPI { api, _ in
            let text = try await api.get("/flows/webViewSignIn?client_id=demo-mobile-app").text
            let page = markupOnly(text)
            #expect(!page.contains(#"class="capture_social""#) && !page.contains("data-capture-provider") && !page.contains("{|"))
            #expect(try FlowPageTests().settingsJSON(in: text)["providers"] as? [String] == [])
            let profile = markupOnly(try await api.get("/flows/webViewProfile?client_id=demo-mobile-app").text)
            #expect(!profile.contains("data-capture-provider") && !profile.contains("{|"))
        }
    }

    @Test func anIconThatIsNotAnAssetStopsStartUpNamingTheProvider() async throws {
        let world = try await TestWorld.make()
        for icon in ["missing.svg", "../Settings/service.json", "/etc/passwd", "capture-ui.js"] {
            let providers = await Self.providers(icon: icon).ordered
            #expect {
                _ = try FlowPages.load(
                    webFlows: world.service.settings.webFlowsDirectory, catalog: world.service.catalog,
                    providers: providers)
            } throws: { error in
                (error as? SettingsError).map { $0.key == "socialProviders.acme.icon" } ?? false
            }
        }
    }
}
