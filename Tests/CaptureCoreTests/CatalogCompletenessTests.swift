import CaptureCore
import CaptureTestSupport
import Foundation
import Testing

/// Every shipped catalog (`Settings/locales/*.json`) says everything English says, in the same shape: adding a
/// language is adding a file, and this suite lists what the new file still lacks.
@Suite struct CatalogCompletenessTests {
    let localization: Localization
    let catalog: FlowCatalog

    init() throws {
        catalog = try FlowCatalog.load(directory: TestWorld.settingsDirectory)
        localization = catalog.localization
    }

    /// The keys every locale needs with their English text: en.json's, and the field texts whose English lives in
    /// forms.json (`field.<field>.label`, `field.<field>.<rule>`, `form.<form>.<field>.label`).
    var english: [String: String] {
        var texts = localization.catalog("en")?.messages ?? [:]
        for (name, field) in catalog.fields {
            texts["field.\(name).label"] = field.label
            for (rule, message) in field.messages ?? [:] { texts["field.\(name).\(rule)"] = message }
        }
        for (form, labels) in catalog.labels {
            for (field, label) in labels { texts["form.\(form).\(field).label"] = label }
        }
        return texts
    }

    static var pluralSuffix: Regex<(Substring, Substring)> { /\.(zero|one|two|few|many|other)$/ }

    /// A key English lacks is allowed only as a plural form of one it has (`mail.expires.minutes.few`).
    func englishKey(for key: String) -> String? {
        if english[key] != nil { return key }
        guard let match = key.firstMatch(of: Self.pluralSuffix) else { return nil }
        let base = String(key[..<match.range.lowerBound])
        return english[base] != nil ? base : nil
    }

    /// `mail.expires.minutes` for `mail.expires.minutes.two` when English has it; nil for a key that is no plural form.
    func pluralBase(of key: String) -> String? {
        guard let match = key.firstMatch(of: Self.pluralSuffix) else { return nil }
        let base = String(key[..<match.range.lowerBound])
        return english[base] != nil ? base : nil
    }

    /// `{name}` placeholders (filled by the service) and `%x` ones (filled by capture-ui.js).
    static func placeholders(_ text: String) -> (named: Set<String>, printf: Set<String>) {
        (
            Set(text.matches(of: /\{[A-Za-z]+\}/).map { String($0.output) }),
            Set(text.matches(of: /%[a-z]/).map { String($0.output) })
        )
    }

    var locales: [String] { localization.tags.filter { $0 != Localization.defaultTag } }

    @Test func theShippedLocalesAreThere() {
        #expect(Set(localization.tags).isSuperset(of: ["en", "de", "fr", "ar"]), "\(localization.tags)")
    }

    /// A regional catalog (`de-AT`) needs only what differs from its language's (`de`): its keys and its parents'.
    func keys(speaking tag: String) -> Set<String> {
        let parts = tag.split(separator: "-").map(String.init)
        var keys = Set<String>()
        for length in 1...max(parts.count, 1) {
            keys.formUnion(localization.catalog(parts.prefix(length).joined(separator: "-"))?.messages.keys.map { $0 } ?? [])
        }
        return keys
    }

    @Test func everyCatalogHasEveryKeyEnglishHas() {
        let needed = Set(english.keys)
        for tag in locales {
            let have = keys(speaking: tag)
            let missing = needed.subtracting(have).sorted()
            #expect(
                missing.isEmpty, "Settings/locales/\(tag).json lacks \(missing.count) keys: \(missing.joined(separator: ", "))")
        }
    }

    @Test func noCatalogHasAKeyEnglishLacks() {
        for tag in localization.tags {
            let keys = localization.catalog(tag)?.messages.keys.map { $0 } ?? []
            let unknown = keys.filter { englishKey(for: $0) == nil }.sorted()
            #expect(
                unknown.isEmpty,
                "Settings/locales/\(tag).json has keys English lacks (typos?): \(unknown.joined(separator: ", "))")
        }
    }

    @Test func everyTextKeepsEnglishsPlaceholders() {
        for tag in locales {
            for (key, text) in localization.catalog(tag)?.messages ?? [:] {
                guard englishKey(for: key) != nil else { continue }
                let base = pluralBase(of: key) ?? key
                guard let reference = english[base] else { continue }
                let (named, printf) = Self.placeholders(text)
                let expected = Self.placeholders(reference)
                if base == key {
                    #expect(
                        named == expected.named && printf == expected.printf,
                        "\(tag): \(key) has \(named.sorted() + printf.sorted()), English \(expected.named.sorted() + expected.printf.sorted())"
                    )
                } else {
                    // A plural form may spell its number out ("دقيقتين"), so it may leave {count} out, but add nothing.
                    #expect(
                        named.isSubset(of: expected.named) && printf.isSubset(of: expected.printf),
                        "\(tag): \(key) has placeholders \(named.sorted() + printf.sorted()) that \(base) lacks")
                }
            }
        }
    }

    @Test func rightToLeftIsExactlyArabic() {
        for tag in localization.tags {
            let direction = localization.catalog(tag)?.direction
            #expect(direction == (tag == "ar" ? "rtl" : "ltr"), "\(tag).json says direction \(direction ?? "nothing")")
        }
    }

    /// Explicit embeddings and overrides (U+202A–U+202E) leak into whatever follows; isolates (U+2066–U+2069) must pair.
    @Test func noTextCarriesBrokenBidiControls() {
        for tag in localization.tags {
            for (key, text) in localization.catalog(tag)?.messages ?? [:] {
                var open = 0
                for scalar in text.unicodeScalars {
                    #expect(!(0x202A...0x202E).contains(scalar.value), "\(tag): \(key) holds an embedding or override")
                    if (0x2066...0x2068).contains(scalar.value) { open += 1 }
                    if scalar.value == 0x2069 { open -= 1 }
                    #expect(open >= 0, "\(tag): \(key) closes an isolate it never opened")
                }
                #expect(open == 0, "\(tag): \(key) leaves an isolate open")
                #expect(
                    !text.isEmpty && text == text.trimmingCharacters(in: .whitespacesAndNewlines),
                    "\(tag): \(key) is empty or padded")
            }
        }
    }

    @Test func fieldLabelsAndMessagesComeFromTheCatalog() throws {
        let german = localization.messages(for: "de-AT")
        let field = try #require(catalog.fields["newPasswordConfirm"])
        #expect(
            catalog.label(of: field, inForm: "registrationForm", messages: german)
                == german.text("field.newPasswordConfirm.label"))
        #expect(
            catalog.label(of: field, inForm: "changePasswordForm", messages: german)
                == german.text("form.changePasswordForm.newPasswordConfirm.label"))
        #expect(catalog.label(of: field, inForm: "registrationForm", messages: german) != field.label)
    }

    @Test func countedTextsTakeTheLanguagesPluralForm() {
        func say(_ tag: String, _ key: String, _ count: Int) -> String { localization.messages(for: tag).text(key, count: count) }
        #expect(say("en", "mail.expires.minutes", 1) == "1 minute")
        #expect(say("en", "mail.expires.minutes", 30) == "30 minutes")
        #expect(say("en-GB", "mail.expires.hours", 24) == "24 hours")
        #expect(say("de-AT", "mail.expires.minutes", 30) == "30 Minuten")
        #expect(say("de", "mail.expires.hours", 1) == "1 Stunde")
        #expect(say("fr-FR", "mail.expires.hours", 1) == "1 heure")
        #expect(say("fr", "mail.expires.minutes", 30) == "30 minutes")
        #expect(say("ar-SA", "mail.expires.minutes", 1) == "دقيقة واحدة")
        #expect(say("ar", "mail.expires.minutes", 2) == "دقيقتين")
        #expect(say("ar", "mail.expires.minutes", 5) == "5 دقائق")
        #expect(say("ar", "mail.expires.minutes", 30) == "30 دقيقة")
        #expect(say("ar", "mail.expires.hours", 24) == "24 ساعة")
        #expect(say("he-IL", "mail.expires.minutes", 30) == "30 minutes", "an unshipped language falls back to English")
    }

    /// Every kind of message has a template in every shipped language, text and HTML, that uses the same
    /// placeholders as the English one; Arabic HTML is marked right-to-left.
    @Test func everyMailKindHasATemplateForEveryLocale() throws {
        let directory = TestWorld.settingsDirectory.appendingPathComponent("mail")
        func read(_ name: String) -> String? {
            try? String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
        }
        func slots(_ text: String) -> Set<String> { Set(text.matches(of: /\{\{[a-z]+\}\}/).map { String($0.output) }) }
        for kind in OutboxEntry.Kind.allCases {
            let englishText = try #require(read("\(kind.rawValue).txt"))
            let englishHTML = try #require(read("\(kind.rawValue).html"))
            for tag in locales {
                let text = read("\(kind.rawValue).\(tag).txt")
                let html = read("\(kind.rawValue).\(tag).html")
                #expect(text != nil, "Settings/mail/\(kind.rawValue).\(tag).txt is missing")
                #expect(html != nil, "Settings/mail/\(kind.rawValue).\(tag).html is missing")
                guard let text, let html else { continue }
                #expect(
                    text.hasPrefix("Subject: ") && text.contains("\n\n"), "\(kind.rawValue).\(tag).txt starts with a Subject line"
                )
                #expect(slots(text) == slots(englishText), "\(kind.rawValue).\(tag).txt: \(slots(text).sorted())")
                #expect(slots(html) == slots(englishHTML), "\(kind.rawValue).\(tag).html: \(slots(html).sorted())")
                let rtl = localization.catalog(tag)?.isRightToLeft == true
                #expect(html.contains("lang=\"\(tag)\""), "\(kind.rawValue).\(tag).html declares its language")
                #expect(html.contains("dir=\"rtl\"") == rtl, "\(kind.rawValue).\(tag).html: dir=rtl exactly for right-to-left")
            }
        }
    }
}
