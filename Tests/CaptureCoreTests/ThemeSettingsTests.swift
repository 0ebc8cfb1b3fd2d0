import CaptureCore
import CaptureTestSupport
import Foundation
import Testing

/// `clients[].theme` and `pageTitle` in service.json (docs/themes.md): checked at start-up like every setting.
@Suite struct ThemeSettingsTests {
    /// A settings directory whose service.json holds one client with `clientJSON`'s extra keys.
    func load(client clientJSON: String) throws -> ServiceSettings {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("theme-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let json = #"{"clients": [{"clientId": "brand-app", "redirectUris": ["/flows/webViewSignIn"], \#(clientJSON)}]}"#
        try Data(json.utf8).write(to: directory.appendingPathComponent("service.json"))
        return try ServiceSettings.load(file: directory.appendingPathComponent("service.json"))
    }

    func refusal(_ clientJSON: String) -> SettingsError? {
        #expect(throws: SettingsError.self) { try load(client: clientJSON) }
    }

    @Test func theShippedThemedClientLoads() throws {
        let settings = try ServiceSettings.load(file: TestWorld.settingsDirectory.appendingPathComponent("service.json"))
        let themed = try #require(settings.clients.first { $0.clientId == "demo-themed-app" })
        #expect(themed.pageTitle == "Northwind account")
        #expect(themed.theme?.colors?["primary"] == "#0f6e5a")
        #expect(themed.theme?.fontFamilyCSS == #""Avenir Next", "Segoe UI", system-ui, sans-serif"#)
        #expect(settings.themesDirectory == TestWorld.settingsDirectory.appendingPathComponent("themes").path)
    }

    @Test func aColourMustBeAHexColour() {
        for bad in ["red", "#12345", "#ggg", "rgb(0,0,0)", "#000; } body { display: none", "#ffffff00"] {
            let error = refusal(##""theme": {"colors": {"primary": "\##(bad)"}}"##)
            #expect(error?.key == "clients[0].theme.colors.primary", "\(bad)")
            #expect(error?.problem.contains("#rrggbb") == true, "\(bad)")
            #expect(error?.file.hasSuffix("service.json") == true)
        }
        let dark = refusal(##""theme": {"darkColors": {"background": "black"}}"##)
        #expect(dark?.key == "clients[0].theme.darkColors.background")
    }

    @Test func anUnknownColourNameIsNamed() {
        let error = refusal(##""theme": {"colors": {"primay": "#0b5cad"}}"##)
        #expect(error?.key == "clients[0].theme.colors.primay")
        #expect(error?.problem.contains("primaryDark") == true, "lists the names it knows")
    }

    @Test func aFontStackCannotCarryCSS() {
        for bad in [
            #"Inter; } body { display: none"#, #"Inter\", evil"#, "url(x)", "", " Inter", "Inter/Bold", "a{b}",
        ] {
            let escaped = bad.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            let error = refusal(##""theme": {"fontStack": ["system-ui", "\##(escaped)"]}"##)
            #expect(error?.key == "clients[0].theme.fontStack[1]", "\(bad)")
        }
        #expect(refusal(##""theme": {"fontStack": []}"##)?.key == "clients[0].theme.fontStack")
        let names = ClientThemeSettings(fontStack: ["Noto Sans Arabic", "Segoe UI", "-apple-system", "sans-serif"])
        #expect(names.problem() == nil)
        #expect(names.fontFamilyCSS == #""Noto Sans Arabic", "Segoe UI", -apple-system, sans-serif"#)
    }

    @Test func theFilesAreBareNamesInTheThemesDirectory() {
        for bad in ["../secret.png", "/etc/passwd.svg", "logo.gif", ".hidden.svg", "a/b.svg", "logo"] {
            #expect(refusal(##""theme": {"logo": "\##(bad)"}"##)?.key == "clients[0].theme.logo", "\(bad)")
        }
        #expect(refusal(##""theme": {"stylesheet": "../x.css"}"##)?.key == "clients[0].theme.stylesheet")
        #expect(refusal(##""theme": {"stylesheet": "brand.js"}"##)?.key == "clients[0].theme.stylesheet")
        #expect(refusal(##""theme": {"logoAlt": "Brand"}"##)?.key == "clients[0].theme.logoAlt", "alt text without a logo")
    }

    @Test func coloursThatFailWCAGAAAreRefusedNamingThePair() {
        let light = refusal(##""theme": {"colors": {"primary": "#7fb2e5"}}"##)
        #expect(light?.key == "clients[0].theme.colors")
        #expect(light?.problem.contains("primary (#7fb2e5) on background (#ffffff)") == true, "\(light?.problem ?? "")")
        #expect(light?.problem.contains("light scheme") == true)
        // The built-in dark background under a dark brand colour the theme gave for dark too.
        let dark = refusal(##""theme": {"darkColors": {"primary": "#0b5cad"}}"##)
        #expect(dark?.key == "clients[0].theme.darkColors")
        #expect(dark?.problem.contains("dark scheme") == true)
        let button = refusal(##""theme": {"colors": {"onPrimary": "#777777"}}"##)
        #expect(button?.problem.contains("onPrimary") == true)
    }

    @Test func aPageTitleIsShortText() throws {
        #expect(refusal(##""pageTitle": "  ""##)?.key == "clients[0].pageTitle")
        #expect(refusal(##""pageTitle": "a\nb""##)?.key == "clients[0].pageTitle")
        #expect(try load(client: ##""pageTitle": "Brand <account>""##).clients[0].pageTitle == "Brand <account>")
    }

    @Test func contrastIsWCAGs() {
        #expect(abs(ThemePalette.contrast("#000", "#ffffff") - 21) < 0.001)
        #expect(abs(ThemePalette.contrast("#777777", "#ffffff") - 4.48) < 0.01)
        #expect(ThemeColor.primaryDark.property == "--capture-primary-dark")
        #expect(ThemeColor.errorSurface.property == "--capture-error-surface")
    }

    /// The palette the contrast rules check must be the one the pages draw with.
    @Test func theBuiltInPalettesAreCaptureCSSs() throws {
        let css = try String(
            contentsOf: TestWorld.repositoryRoot.appendingPathComponent("WebFlows/assets/capture.css"), encoding: .utf8)
        let darkStart = try #require(css.range(of: "@media (prefers-color-scheme: dark)"))
        let lightPart = String(css[..<darkStart.lowerBound])
        let darkPart = String(css[darkStart.upperBound...].prefix { $0 != "}" })
        func value(_ property: String, in text: String) -> String? {
            guard let range = text.range(of: "\(property):") else { return nil }
            return text[range.upperBound...].prefix { $0 != ";" }.trimmingCharacters(in: .whitespaces)
        }
        for color in ThemeColor.allCases {
            #expect(value(color.property, in: lightPart) == ThemePalette.light[color], "\(color) light")
            #expect(value(color.property, in: darkPart) == ThemePalette.dark[color], "\(color) dark")
        }
        #expect(ThemePalette(colors: ThemePalette.light).contrastProblem() == nil)
        #expect(ThemePalette(colors: ThemePalette.dark).contrastProblem() == nil)
    }
}
