import CaptureCore
import CaptureTestSupport
import Foundation
import Hummingbird
import Testing

@testable import CaptureServer

/// Per-client looks (docs/themes.md): `/flows/themes/<clientId>.css`, the logo, and what the pages link.
@Suite struct ClientThemeTests {
    @Test func aThemedClientsStylesheetIsGeneratedFromSettings() async throws {
        try await withAPI { api, _ in
            let css = try await api.get("/flows/themes/demo-themed-app.css")
            #expect(css.status == .ok)
            #expect(css.headers[.contentType] == "text/css; charset=utf-8")
            #expect(css.headers[.cacheControl] == "no-cache")
            let etag = try #require(css.headers[.eTag])
            #expect(css.text.contains("--capture-primary: #0f6e5a;"))
            #expect(css.text.contains(#"--capture-font: "Avenir Next", "Segoe UI", system-ui, sans-serif;"#))
            let dark = try #require(css.text.range(of: "@media (prefers-color-scheme: dark)"))
            let darkRules = css.text[dark.upperBound...]
            #expect(darkRules.contains("--capture-primary: #6fd6bd;"))
            #expect(darkRules.contains("--capture-on-primary: #07261f;"))
            #expect(css.text.contains("border-radius: 24px"), "the extra stylesheet follows the generated rules")
            let again = try await api.get("/flows/themes/demo-themed-app.css", headers: [.ifNoneMatch: etag])
            #expect(again.status == .notModified)
        }
    }

    @Test func aClientWithoutAThemeGetsAnEmptyValidStylesheet() async throws {
        try await withAPI { api, _ in
            let css = try await api.get("/flows/themes/demo-mobile-app.css")
            #expect(css.status == .ok)
            #expect(css.headers[.contentType] == "text/css; charset=utf-8")
            #expect(css.headers[.eTag] != nil)
            #expect(!css.text.contains("{"), "no rules: \(css.text)")
            // A client added with capturectl (not in service.json) gets the same; nothing says which ids exist.
            #expect(try await api.get("/flows/themes/some-other-app.css").text == css.text)
            #expect(try await api.get("/flows/themes/x.js").status == .notFound)
            #expect(try await api.get("/flows/themes/..%2Fservice.json").status == .notFound)
        }
    }

    @Test func theLogoIsServedFromTheThemesDirectory() async throws {
        try await withAPI { api, _ in
            let logo = try await api.get("/flows/themes/demo-themed-app.logo.svg")
            #expect(logo.status == .ok)
            #expect(logo.headers[.contentType] == "image/svg+xml")
            #expect(logo.text.contains("Northwind"))
            #expect(logo.headers[.contentSecurityPolicy]?.contains("script-src 'self'") == true)
        }
    }

    @Test(arguments: ["webViewSignIn", "webViewProfile", "webViewDemo"])
    func aThemedPageLinksItsStylesheetShowsItsLogoAndTitle(flow: String) async throws {
        try await withAPI { api, _ in
            let page = try await api.get("/flows/\(flow)?client_id=demo-themed-app")
            #expect(page.status == .ok)
            #expect(page.text.contains("<title>Northwind account</title>"))
            let html = withoutContentAddresses(page.text)
            // Both stylesheets are small enough to travel in the page (docs/adr/0073), each allowed by its hash.
            let styles = html.components(separatedBy: "<style>").dropFirst().map { $0.components(separatedBy: "</style>")[0] }
            #expect(styles.count == 2)
            #expect(styles.first?.contains(".capture_container") == true)
            #expect(
                styles.last?.hasPrefix("/* Theme of client demo-themed-app") == true,
                "the theme comes after capture.css, so it wins")
            let csp = try #require(page.headers[.contentSecurityPolicy])
            for style in styles { #expect(csp.contains(InlineAssets.hash(style))) }
            #expect(html.contains(#"<img class="capture_logo" src="/flows/themes/demo-themed-app.logo.svg" alt="Northwind">"#))
            // Each at the URL of its bytes, so a web view keeps it for good.
            for path in contentAddressedPaths(in: page.text) {
                #expect(try await api.get(path).headers[.cacheControl] == "public, max-age=31536000, immutable", "\(path)")
            }
            #expect(page.text.contains(#"<meta name="color-scheme" content="light dark">"#))
            #expect(!page.text.contains("{{"), "every placeholder is filled")
            #expect(!page.text.contains(" style="), "no style attribute")
            #expect(!csp.contains("unsafe-inline"))
            #expect(SecurityHeaders.contentSecurityPolicy.contains("style-src 'self';"), "replies that are not pages")
        }
    }

    @Test func anUnthemedPageKeepsTheFlowsTitleAndHasNoLogo() async throws {
        try await withAPI { api, _ in
            let page = try await api.get("/flows/webViewSignIn?client_id=demo-mobile-app")
            #expect(page.text.contains("<title>Sign in</title>"))
            let markup = markupOnly(page.text)
            #expect(!markup.contains("/flows/themes/"), "no stylesheet of its own")
            #expect(markup.components(separatedBy: "<style>").count == 2, "capture.css alone")
            #expect(!markup.contains("capture_logo"))
            #expect(!page.text.contains("{{"))
        }
    }

    @Test func aPageTitleIsEscaped() async throws {
        try await withAPI(configure: { settings in
            settings.clients[0].pageTitle = "Brand </title><script>x</script>"
        }) { api, world in
            let id = world.service.settings.clients[0].clientId
            let page = try await api.get("/flows/webViewSignIn?client_id=\(id)")
            #expect(page.text.contains("<title>Brand &lt;/title&gt;&lt;script&gt;x&lt;/script&gt;</title>"))
        }
    }

    @Test func aMissingThemeFileStopsStartUpNamingTheKey() async throws {
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("themes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let world = try await TestWorld.make { $0.themesDirectory = empty.path }
        let index = try #require(world.service.settings.clients.firstIndex { $0.clientId == "demo-themed-app" })
        let error = #expect(throws: SettingsError.self) { try buildRouter(features: world.service) }
        #expect(error?.file == "service.json")
        #expect(error?.key == "clients[\(index)].theme.stylesheet")
        #expect(error?.problem.contains("cannot be read") == true)
    }

    @Test func theGeneratedRulesCarryOnlyValidatedValues() {
        let theme = ClientThemeSettings(colors: ["primary": "#0F6E5A"], fontStack: ["Inter", "sans-serif"])
        let css = ClientThemes.stylesheet(clientID: "brand-app", theme: theme)
        #expect(css.contains("--capture-primary: #0f6e5a;"))
        // A colour set for light only keeps the built-in dark value in the dark scheme.
        #expect(css.contains("--capture-primary: \(ThemePalette.dark[.primary]!);"))
        #expect(css.contains(#"--capture-font: "Inter", sans-serif;"#))
    }
}
