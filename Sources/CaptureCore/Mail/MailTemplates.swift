import Foundation

/// The messages the service sends, per kind and locale, from `Settings/mail/` (read once at start-up):
/// `<kind>.txt` starts with a `Subject:` line, then a blank line, then the text body; `<kind>.html` is the HTML
/// alternative. `<kind>.<locale>.txt` (e.g. `passwordReset.de.txt`) wins for that locale (`de-AT` → `de` → default).
/// Placeholders: `{{code}}`, `{{link}}`, `{{expires}}`, `{{name}}`, `{{origin}}`, `{{site}}` (the client's `siteName`, else
/// the origin), `{{providers}}`, `{{email}}`, `{{previous}}`; HTML gets them escaped.
/// A section `{{#link}}…{{/link}}` stays only when its value is given and not empty (an address change's notice
/// carries a restore link only when it opened the way back).
public struct MailTemplates: Sendable {
    struct Template: Sendable {
        var subject: String
        var text: String
        var html: String?
    }

    /// Keyed by "kind" or "kind.locale".
    let templates: [String: Template]

    public static func load(directory: String) -> MailTemplates {
        var templates = builtIn
        let url = URL(fileURLWithPath: directory)
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for file in files where file.hasSuffix(".txt") {
            let key = String(file.dropLast(4))
            guard let raw = try? String(contentsOf: url.appendingPathComponent(file), encoding: .utf8),
                let parsed = parse(raw)
            else { continue }
            let html = try? String(contentsOf: url.appendingPathComponent(key + ".html"), encoding: .utf8)
            templates[key] = Template(subject: parsed.subject, text: parsed.body, html: html)
        }
        return MailTemplates(templates: templates)
    }

    static func parse(_ raw: String) -> (subject: String, body: String)? {
        let normalized = raw.replacingOccurrences(of: "\r\n", with: "\n")
        guard normalized.hasPrefix("Subject:"), let end = normalized.range(of: "\n\n") else { return nil }
        let subject = normalized[normalized.index(normalized.startIndex, offsetBy: 8)..<end.lowerBound]
        return (subject.trimmingCharacters(in: .whitespaces), String(normalized[end.upperBound...]))
    }

    /// The subject, text and HTML of `kind` in `locale`, with `values` filled in.
    public func render(
        _ kind: OutboxEntry.Kind, locale: String?, values: [String: String]
    ) -> (subject: String, text: String, html: String?) {
        let template =
            candidates(kind.rawValue, locale: locale).lazy.compactMap { templates[$0] }.first
            ?? Self.builtIn[kind.rawValue]!
        func fill(_ text: String, escape: (String) -> String) -> String {
            values.reduce(Self.sections(of: text, given: values)) { result, pair in
                result.replacingOccurrences(of: "{{\(pair.key)}}", with: escape(pair.value))
            }
        }
        return (
            fill(template.subject, escape: { $0 }), fill(template.text, escape: { $0 }),
            template.html.map { fill($0, escape: Self.escapeHTML) }
        )
    }

    /// `text` with each `{{#key}}…{{/key}}` section's markers removed when `values[key]` is not empty, and the whole
    /// section removed otherwise.
    static func sections(of text: String, given values: [String: String]) -> String {
        var text = text
        while let open = text.range(of: "{{#"), let nameEnd = text.range(of: "}}", range: open.upperBound..<text.endIndex) {
            let name = String(text[open.upperBound..<nameEnd.lowerBound])
            guard let close = text.range(of: "{{/\(name)}}", range: nameEnd.upperBound..<text.endIndex) else { break }
            let keep = values[name].map { !$0.isEmpty } ?? false
            text.replaceSubrange(
                open.lowerBound..<close.upperBound, with: keep ? text[nameEnd.upperBound..<close.lowerBound] : "")
        }
        return text
    }

    func candidates(_ kind: String, locale: String?) -> [String] {
        var keys: [String] = []
        if let locale, !locale.isEmpty {
            keys.append("\(kind).\(locale)")
            if let language = locale.split(separator: "-").first, language.count < locale.count {
                keys.append("\(kind).\(language)")
            }
        }
        return keys + [kind]
    }

    static func escapeHTML(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    /// Used when Settings has no template of a kind, so a missing file never stops a reset.
    static let builtIn: [String: Template] = [
        OutboxEntry.Kind.passwordReset.rawValue: Template(
            subject: "Your password reset code",
            text:
                "Your code is {{code}}. Type it where you asked to reset your password, or open {{link}}\nIt works once, for {{expires}}. If you did not ask, ignore this message.\n"
        ),
        OutboxEntry.Kind.emailVerification.rawValue: Template(
            subject: "Confirm your email address",
            text:
                "Your code is {{code}}. Type it where you are asked to confirm your address, or open {{link}}\nIt works once, for {{expires}}.\n"
        ),
        OutboxEntry.Kind.emailChanged.rawValue: Template(
            subject: "The email address of your account was changed",
            text:
                "The address of your account at {{origin}} was changed from {{previous}} to {{email}}. If this was not you, {{#link}}open {{link}} within {{expires}} to put {{previous}} back and choose a new password. {{/link}}For help, reply to this message or contact support at once.\n"
        ),
        OutboxEntry.Kind.providerLinksRemoved.rawValue: Template(
            subject: "Sign-ins removed from your account",
            text:
                "Your address was confirmed for the first time, so sign-ins through {{providers}} that did not confirm this address were removed from your account, and every session ended. If you added them yourself, sign in and link them again from your profile.\n"
        ),
        OutboxEntry.Kind.accountDeleted.rawValue: Template(
            subject: "Your account was deleted",
            text:
                "Your account at {{origin}} was deleted and every session ended. It will be erased on {{erase}}. To keep it, sign in before then and choose to reactivate it. If this was not you, sign in, reactivate it and change your password.\n"
        ),
        OutboxEntry.Kind.accountData.rawValue: Template(
            subject: "Your data",
            text:
                "You asked for a copy of what {{origin}} keeps about you; it follows as a JSON document. If you did not ask for it, sign in and change your password.\n\n{{data}}\n"
        ),
    ]
}
