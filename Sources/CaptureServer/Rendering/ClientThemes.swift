import CaptureCore
import Foundation
import Hummingbird

/// Every client's look, built once at start-up from `clients[].theme` and `pageTitle` (docs/themes.md): the
/// stylesheet the service serves at `/flows/themes/<clientId>.css` (colours, font stack, the extra stylesheet), the
/// logo at `/flows/themes/<clientId>.logo.<svg|png>`, and the fragments each page view puts in its template.
/// A small stylesheet travels in the page itself (docs/adr/0073), allowed by its hash in the page's CSP, never by
/// 'unsafe-inline'; a large one is linked.
struct ClientThemes: Sendable {
    /// What one client's pages get: the logo element (or nothing) and the escaped title (nil: the flow's own).
    struct Page: Sendable {
        let logo: String
        let title: String?
        /// The client's stylesheet, after capture.css: a `<style>` element (up to `maxInlineStylesheetBytes`) or a
        /// `<link>` to its content-addressed URL; nothing for a client without a theme.
        var stylesheet = ""
        /// The inline stylesheet's CSP hash source.
        var inlineStyleHash: String?

        /// The client's stylesheet in the page (small, and nothing in it could end the element) or linked at `path`.
        mutating func place(stylesheet asset: StaticAssets.Asset, at path: String) {
            let css = String(buffer: asset.bytes)
            if asset.bytes.readableBytes <= ClientThemes.maxInlineStylesheetBytes, InlineAssets.isInlinable(css) {
                stylesheet = "<style>\(css)</style>"
                inlineStyleHash = InlineAssets.hash(css)
            } else {
                stylesheet = "<link rel=\"stylesheet\" href=\"\(HTML.escape(path))\">"
            }
        }
    }

    let pages: [String: Page]
    /// Generated stylesheets and logos by file name under `/flows/themes/`.
    let files: [String: StaticAssets.Asset]

    /// The stylesheet of a client without a theme: valid, empty, cacheable like the rest.
    static let emptyStylesheet = StaticAssets.Asset(
        data: Data("/* This client has no theme (docs/themes.md). */\n".utf8), contentType: "text/css; charset=utf-8")
    static let maxStylesheetBytes = 256 * 1024
    static let maxLogoBytes = 512 * 1024
    /// A theme up to this size goes in the page: its own request would cost a phone a round trip before the first
    /// screen shows (a script waits for the stylesheets before it).
    static let maxInlineStylesheetBytes = 8 * 1024

    static let none = ClientThemes(pages: [:], files: [:])

    static func load(settings: ServiceSettings) throws -> ClientThemes {
        let directory = URL(fileURLWithPath: settings.themesDirectory)
        var pages: [String: Page] = [:]
        var files: [String: StaticAssets.Asset] = [:]
        for (index, client) in settings.clients.enumerated() {
            let id = client.clientId
            let key = "clients[\(index)].theme"
            var logo = ""
            if let theme = client.theme {
                var css = stylesheet(clientID: id, theme: theme)
                if let name = theme.stylesheet {
                    let data = try read(name, in: directory, key: "\(key).stylesheet", limit: maxStylesheetBytes)
                    guard let text = String(data: data, encoding: .utf8) else {
                        throw SettingsError(
                            file: "service.json", key: "\(key).stylesheet", problem: "'\(name)' is not UTF-8 text")
                    }
                    css += "\n/* \(name) */\n" + text
                }
                files[id + ".css"] = StaticAssets.Asset(data: Data(css.utf8), contentType: "text/css; charset=utf-8")
                if let name = theme.logo {
                    let data = try read(name, in: directory, key: "\(key).logo", limit: maxLogoBytes)
                    let ext = (name as NSString).pathExtension.lowercased()
                    let file = "\(id).logo.\(ext)"
                    files[file] = StaticAssets.Asset(data: data, contentType: StaticAssets.contentType(of: file) ?? "image/png")
                    logo =
                        "<img class=\"capture_logo\" src=\"\(HTML.escape(path(of: file, in: files)))\" alt=\"\(HTML.escape(theme.logoAlt ?? ""))\">"
                }
            }
            if client.theme != nil || client.pageTitle != nil {
                var page = Page(logo: logo, title: client.pageTitle.map(HTML.escape))
                if let css = files[id + ".css"] { page.place(stylesheet: css, at: path(of: id + ".css", in: files)) }
                pages[id] = page
            }
        }
        return ClientThemes(pages: pages, files: files)
    }

    /// The client's colours as `--capture-*` properties: the light values at the root, and for every colour the
    /// theme names, its dark value (the theme's or the built-in one) under `prefers-color-scheme: dark`, so a light
    /// brand colour never lands on the dark background unchecked.
    static func stylesheet(clientID: String, theme: ClientThemeSettings) -> String {
        let named = Set((theme.colors ?? [:]).keys).union((theme.darkColors ?? [:]).keys)
            .compactMap(ThemeColor.init(rawValue:))
        let colors = ThemeColor.allCases.filter { named.contains($0) }
        let light = ThemePalette.effective(.light, overrides: theme.colors)
        let dark = ThemePalette.effective(.dark, overrides: theme.darkColors)
        var css = "/* Theme of client \(clientID), generated at start-up from service.json (docs/themes.md). */\n:root {\n"
        for color in colors { css += "  \(color.property): \(light.colors[color] ?? "");\n" }
        if let font = theme.fontFamilyCSS { css += "  --capture-font: \(font);\n" }
        css += "}\n"
        if !colors.isEmpty {
            css += "\n@media (prefers-color-scheme: dark) {\n  :root {\n"
            for color in colors { css += "    \(color.property): \(dark.colors[color] ?? "");\n" }
            css += "  }\n}\n"
        }
        return css
    }

    private static func read(_ name: String, in directory: URL, key: String, limit: Int) throws -> Data {
        let url = directory.appendingPathComponent(name)
        guard let data = try? Data(contentsOf: url) else {
            throw SettingsError(file: "service.json", key: key, problem: "\(url.path) cannot be read")
        }
        guard data.count <= limit else {
            throw SettingsError(file: "service.json", key: key, problem: "\(url.path) is larger than \(limit / 1024) KiB")
        }
        return data
    }

    /// The fragments of one page view: the client's, or for a client without a look, none.
    func page(for clientID: String) -> Page {
        pages[clientID] ?? Page(logo: "", title: nil)
    }

    /// `/flows/themes/<file>` with the file's hash in its name (`ContentAddress`): the empty stylesheet's for a
    /// client without one.
    static func path(of file: String, in files: [String: StaticAssets.Asset]) -> String {
        "/flows/themes/\(ContentAddress.name(file, hash: (files[file] ?? emptyStylesheet).hash))"
    }

    /// `GET /flows/themes/<file>`: a generated stylesheet or logo; the empty stylesheet for any other client id. Under
    /// its content-addressed name, kept for good; under the plain one, revalidated (docs/adr/0070).
    func response(for file: String, headers: HTTPFields) -> Response? {
        StaticAssets.response(for: file, headers: headers) { name in
            if let asset = files[name] { return asset }
            if name.hasSuffix(".css"), ClientRules.isValidClientID(String(name.dropLast(4))) { return Self.emptyStylesheet }
            return nil
        }
    }
}
