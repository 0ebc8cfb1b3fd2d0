import CaptureCore
import CaptureJSON
import Foundation

/// A flow page with its `{* field *}` and `{* #form *} … {* /form *}` tags expanded from Settings, done once
/// at start-up; only the per-request values (`{{…}}`) are filled in later.
struct FlowTemplate: Sendable {
    let flow: FlowDefinition
    let segments: TemplateSegments
    /// The flow's title, escaped once; a client's `pageTitle` replaces it per request.
    let title: String
    /// What the page carries inline (`InlineAssets`), for its CSP.
    var inline = InlineHashes()

    init(flow: FlowDefinition, html: String, messages: Messages) {
        self.flow = flow
        title = HTML.escape(messages.optionalText("flow.\(flow.name).title") ?? flow.title)
        segments = TemplateSegments(html)
    }

    /// `{{t:key}}`: the text of `key`, escaped; its `{name}` placeholders become the elements the widget fills
    /// (`<strong data-capture-bind="name">`), and `{requiredMark}` the required-field asterisk. Also the language's
    /// direction (`{{dir}}`) and the widget's texts (`{{widgetMessages}}`); the page title is filled per request.
    static func localize(_ template: String, file: String, flow: FlowDefinition, messages: Messages) throws -> String {
        var output = ""
        var cursor = template.startIndex
        for match in localizable.matches(in: template, range: NSRange(template.startIndex..., in: template)) {
            guard let whole = Range(match.range, in: template), let nameRange = Range(match.range(at: 1), in: template) else {
                continue
            }
            output += template[cursor..<whole.lowerBound]
            cursor = whole.upperBound
            switch template[nameRange] {
            case "dir": output += messages.isRightToLeft ? "rtl" : "ltr"
            case "widgetMessages":
                let texts = JSONValue.object(messages.texts(withPrefix: "widget.").mapValues(JSONValue.string))
                output += HTML.scriptSafeJSON(String(decoding: texts.encoded(), as: UTF8.self))
            case let name:
                let key = String(name.dropFirst(2))
                guard let text = messages.optionalText(key) else {
                    throw SettingsError(file: file, key: "{{t:\(key)}}", problem: "no catalog in Settings/locales has '\(key)'")
                }
                output += markup(text)
            }
        }
        return output + template[cursor...]
    }

    /// `{{t:key}}`, `{{dir}}` and `{{widgetMessages}}`: what `localize` fills, found in one pass.
    private static let localizable = try! NSRegularExpression(pattern: #"\{\{(t:[A-Za-z0-9_.]+|dir|widgetMessages)\}\}"#)

    /// A catalog text as HTML: escaped, with `{name}` placeholders as the elements the widget binds.
    static func markup(_ text: String) -> String {
        var output = ""
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            output += HTML.escape(String(rest[..<open]))
            let name = String(rest[rest.index(after: open)..<close])
            if name == "requiredMark" {
                output += #"<span class="capture_required_mark" aria-hidden="true">*</span>"#
            } else if !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) {
                output += #"<strong data-capture-bind="\#(name)"></strong>"#
            } else {
                output += HTML.escape(String(rest[open...close]))
            }
            rest = rest[rest.index(after: close)...]
        }
        return output + HTML.escape(String(rest))
    }

    /// Replaces each `{* >name *}` with `partials/name.html`: screens several pages share are written once.
    /// One level deep (a partial includes nothing); a missing partial is a settings error naming the page.
    static func include(_ template: String, file: String, partials: URL) throws -> String {
        let pattern = try NSRegularExpression(pattern: #"[ \t]*\{\*\s*>([A-Za-z][A-Za-z0-9_]*)\s*\*\}\n?"#)
        var output = ""
        var cursor = template.startIndex
        for match in pattern.matches(in: template, range: NSRange(template.startIndex..., in: template)) {
            guard let whole = Range(match.range, in: template), let name = Range(match.range(at: 1), in: template) else {
                continue
            }
            let url = partials.appendingPathComponent("\(template[name]).html")
            guard let partial = try? String(contentsOf: url, encoding: .utf8) else {
                throw SettingsError(file: file, key: "{* >\(template[name]) *}", problem: "partial \(url.path) cannot be read")
            }
            output += template[cursor..<whole.lowerBound] + partial
            cursor = whole.upperBound
        }
        return output + template[cursor...]
    }

    /// Expands `template` (read from `file`) against the catalog; an unknown field or form, or a form the
    /// flow does not allow, is a settings error naming the template.
    static func expand(
        _ raw: String, file: String, flow: FlowDefinition, catalog: FlowCatalog, messages: Messages
    ) throws -> FlowTemplate {
        let template = try localize(raw, file: file, flow: flow, messages: messages)
        var output = ""
        var cursor = template.startIndex
        var usedIDs: [String: Int] = [:]
        var currentForm: String?
        let matches = formTag.matches(in: template, range: NSRange(template.startIndex..., in: template))
        for match in matches {
            guard let whole = Range(match.range, in: template), let markRange = Range(match.range(at: 1), in: template),
                let nameRange = Range(match.range(at: 2), in: template)
            else { continue }
            output += template[cursor..<whole.lowerBound]
            cursor = whole.upperBound
            let name = String(template[nameRange])
            switch template[markRange] {
            case "#":
                guard catalog.forms[name] != nil, flow.forms.contains(name) else {
                    throw SettingsError(
                        file: file, key: "{* #\(name) *}", problem: "form '\(name)' is not a form of flow '\(flow.name)'")
                }
                currentForm = name
                output += "<form name=\"\(name)\" class=\"capture_form\" data-capture-form=\"\(name)\" novalidate>"
                output += "<p class=\"capture_form_error\" role=\"alert\" hidden></p>"
            case "/":
                guard currentForm == name else {
                    throw SettingsError(file: file, key: "{* /\(name) *}", problem: "closes a form that is not open")
                }
                currentForm = nil
                output += "</form>"
            default:
                guard let form = currentForm else {
                    throw SettingsError(file: file, key: "{* \(name) *}", problem: "field outside a {* #form *}")
                }
                guard catalog.forms[form]?.contains(name) == true, let field = catalog.fields[name] else {
                    throw SettingsError(file: file, key: "{* \(name) *}", problem: "'\(name)' is not a field of form '\(form)'")
                }
                let base = "capture_\(form)_\(name)"
                let count = usedIDs[base, default: 0] + 1
                usedIDs[base] = count
                output += fieldHTML(
                    field, label: catalog.label(of: field, inForm: form, messages: messages),
                    id: count == 1 ? base : "\(base)_\(count)", messages: messages)
            }
        }
        output += template[cursor...]
        if let open = currentForm {
            throw SettingsError(file: file, key: "{* #\(open) *}", problem: "form is never closed")
        }
        return FlowTemplate(flow: flow, html: output, messages: messages)
    }

    /// `{* #form *}`, `{* /form *}` and `{* field *}`.
    private static let formTag = try! NSRegularExpression(pattern: #"\{\*\s*([#/]?)([A-Za-z][A-Za-z0-9_]*)\s*\*\}"#)

    /// One field: label, input, its rules where a new password must follow them (shown before they fail), a
    /// show-password toggle for password inputs, and the place for its error; a box comes before its label.
    static func fieldHTML(_ field: FieldDefinition, label: String, id: String, messages: Messages) -> String {
        let rules =
            field.isPassword && field.autocomplete == "new-password"
            ? field.minLength.map { messages.text("rule.passwordHint", ["count": "\($0)"]) } : nil
        var attributes = [
            "id=\"\(id)\"", "name=\"\(HTML.escape(field.name))\"", "type=\"\(HTML.escape(field.type))\"",
            "aria-describedby=\"\(rules == nil ? "" : "\(id)_hint ")\(id)_error\"",
        ]
        if let autocomplete = field.autocomplete { attributes.append("autocomplete=\"\(HTML.escape(autocomplete))\"") }
        if field.isRequired { attributes.append("required aria-required=\"true\"") }
        if let max = field.maxLength { attributes.append("maxlength=\"\(max)\"") }
        if field.type == "email" { attributes.append("autocapitalize=\"none\" spellcheck=\"false\"") }
        if field.isCheckbox {
            // The box beside its sentence, drawn as the documents' boxes are (capture.css, .capture_check).
            return """
                <div class="capture_form_item" data-capture-field="\(HTML.escape(field.name))">\
                <div class="capture_check"><span class="capture_check_box"><input \(attributes.joined(separator: " ")) value="true">\
                <span class="capture_check_mark" aria-hidden="true"></span></span>\
                <label for="\(id)">\(HTML.escape(label))</label></div>\
                <p class="capture_tip_error" id="\(id)_error" hidden></p>\
                </div>
                """
        }
        return """
            <div class="capture_form_item" data-capture-field="\(HTML.escape(field.name))">\
            <label for="\(id)">\(HTML.escape(label))</label>\
            \(field.isPassword ? "<div class=\"capture_password\">" : "")<input \(attributes.joined(separator: " "))>\
            \(field.isPassword ? "<button type=\"button\" class=\"capture_reveal\" aria-pressed=\"false\" aria-controls=\"\(id)\" data-capture-reveal>\(HTML.escape(messages.text("page.revealPassword")))</button></div>" : "")\
            \(rules.map { "<p class=\"capture_hint\" id=\"\(id)_hint\">\(HTML.escape($0))</p>" } ?? "")\
            <p class="capture_tip_error" id="\(id)_error" hidden></p>\
            </div>
            """
    }

    /// The page's CSP: the strict one, plus its inline texts' hashes and the client's inline stylesheet's.
    func contentSecurityPolicy(theme: ClientThemes.Page) -> String {
        var inline = inline
        if let style = theme.inlineStyleHash { inline.styles.append(style) }
        return ContentSecurityPolicy.header(allowing: inline)
    }

    /// Fills the per-request placeholders: the settings JSON and the language, and the client's look (its
    /// stylesheet link, logo and title, prepared at start-up). One pass over the prepared segments.
    func render(settingsJSON: String, locale: String, clientID: String, theme: ClientThemes.Page) -> String {
        let settings = HTML.scriptSafeJSON(settingsJSON)
        let lang = HTML.escape(locale)
        let title = theme.title ?? self.title
        let stylesheet = theme.stylesheet
        var output = ""
        output.reserveCapacity(
            segments.literalLength + settings.utf8.count * segments.settingsCount + title.utf8.count + stylesheet.utf8.count
                + theme.logo.utf8.count + 16)
        for segment in segments.parts {
            switch segment {
            case .text(let text): output += text
            case .settingsJSON: output += settings
            case .lang: output += lang
            case .pageTitle: output += title
            case .themeStylesheet: output += stylesheet
            case .themeLogo: output += theme.logo
            }
        }
        return output
    }
}

/// A template cut at its per-request placeholders, once at start-up.
struct TemplateSegments: Sendable {
    enum Part: Sendable { case text(String), settingsJSON, lang, pageTitle, themeStylesheet, themeLogo }
    let parts: [Part]
    let literalLength: Int
    let settingsCount: Int

    private static let placeholders: [(token: [UInt8], part: Part)] = [
        (Array("{{janrainSettingsJSON}}".utf8), Part.settingsJSON), (Array("{{lang}}".utf8), Part.lang),
        (Array("{{pageTitle}}".utf8), Part.pageTitle), (Array("{{themeStylesheet}}".utf8), Part.themeStylesheet),
        (Array("{{themeLogo}}".utf8), Part.themeLogo),
    ]

    /// One pass over the page's bytes: at each `{{`, the placeholder that starts there (if any) ends a literal.
    init(_ html: String) {
        let bytes = Array(html.utf8)
        var parts: [Part] = []
        var literalStart = 0
        var index = 0
        while index + 1 < bytes.count {
            guard bytes[index] == UInt8(ascii: "{"), bytes[index + 1] == UInt8(ascii: "{"),
                let placeholder = Self.placeholders.first(where: { bytes[index...].starts(with: $0.token) })
            else {
                index += 1
                continue
            }
            parts.append(.text(String(decoding: bytes[literalStart..<index], as: UTF8.self)))
            parts.append(placeholder.part)
            index += placeholder.token.count
            literalStart = index
        }
        parts.append(.text(String(decoding: bytes[literalStart...], as: UTF8.self)))
        self.parts = parts
        literalLength = parts.reduce(0) { if case .text(let text) = $1 { $0 + text.utf8.count } else { $0 } }
        settingsCount = parts.filter { if case .settingsJSON = $0 { true } else { false } }.count
    }
}
