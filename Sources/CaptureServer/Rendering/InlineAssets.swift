import CaptureCore
import Crypto
import Foundation

/// `{{inline:<name>}}` in a page template: an asset's bytes in the page itself, between the element tags the template
/// writes (`<style>{{inline:capture.css}}</style>`, `<script data-capture-rest="…">{{inline:capture-first.js}}</script>`),
/// so the first screen needs no other request (docs/adr/0073). Done once at start-up, before the template's own tags
/// are expanded; each inlined text's SHA-256 goes into the page's CSP (`ContentSecurityPolicy`), which stays without
/// 'unsafe-inline'.
enum InlineAssets {
    /// The template with its inline tags filled, and the hashes its CSP must allow.
    static func expand(_ template: String, file: String, assets: StaticAssets) throws -> (html: String, inline: InlineHashes) {
        var output = ""
        var hashes = InlineHashes()
        var cursor = template.startIndex
        for match in tag.matches(in: template, range: NSRange(template.startIndex..., in: template)) {
            guard let whole = Range(match.range, in: template), let nameRange = Range(match.range(at: 1), in: template)
            else { continue }
            let name = String(template[nameRange])
            guard let asset = assets.assets[name], name.hasSuffix(".js") || name.hasSuffix(".css") else {
                throw SettingsError(
                    file: file, key: "{{inline:\(name)}}", problem: "no script or stylesheet '\(name)' in WebFlows/assets")
            }
            // Its references to other assets as the page's are: content-addressed.
            let text = assets.addressing(String(buffer: asset.bytes))
            guard isInlinable(text) else {
                throw SettingsError(
                    file: file, key: "{{inline:\(name)}}",
                    problem:
                        "'\(name)' holds text that would end its element or a template tag (</script, </style, <!--, {{, {*, {|, a carriage return)"
                )
            }
            output += template[cursor..<whole.lowerBound] + text
            cursor = whole.upperBound
            if name.hasSuffix(".js") { hashes.scripts.append(hash(text)) } else { hashes.styles.append(hash(text)) }
        }
        return (output + template[cursor...], hashes)
    }

    /// Whether `text` can stand between `<script>`/`<style>` tags as it is, and before the template's expansion: nothing
    /// ends the element or opens a comment there, no template tag, and no carriage return (the HTML parser would turn
    /// CR LF into LF, and the CSP hash would no longer match).
    static func isInlinable(_ text: String) -> Bool {
        let lowered = text.lowercased()
        return !["</script", "</style", "<!--", "{{", "{*", "{|", "\r"].contains { lowered.contains($0) }
    }

    /// CSP's hash source for `text` (`'sha256-<base64>'`, CSP Level 3 §8.4), over its UTF-8 bytes.
    static func hash(_ text: String) -> String {
        "'sha256-\(Data(SHA256.hash(data: Data(text.utf8))).base64EncodedString())'"
    }

    private static let tag = try! NSRegularExpression(pattern: #"\{\{inline:([A-Za-z0-9_.-]+)\}\}"#)
}

/// The inline scripts and styles a page carries, as CSP hash sources.
struct InlineHashes: Sendable, Equatable {
    var scripts: [String] = []
    var styles: [String] = []
}
