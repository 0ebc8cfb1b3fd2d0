import Foundation

/// One locale's texts, `Settings/locales/<tag>.json`: `{"direction": "ltr" | "rtl", "messages": {key: text}}`. The
/// file name is the BCP 47 tag (`de`, `de-AT`, `ar`). Texts may hold `{name}` placeholders, filled when used.
public struct MessageCatalog: Sendable, Equatable, Decodable {
    public var tag: String = ""
    public var direction: String?
    public var messages: [String: String]

    enum CodingKeys: String, CodingKey { case direction, messages }

    public var isRightToLeft: Bool { direction == "rtl" }
}

/// A locale's texts with their fallbacks, most specific first (`de-AT` → `de` → the default, English), so a catalog
/// may hold only what differs from the one it falls back to.
public struct Messages: Sendable {
    let chain: [MessageCatalog]

    /// The most specific catalog in the chain: the language the texts are in.
    public var tag: String { chain.first?.tag ?? Localization.defaultTag }
    public var isRightToLeft: Bool { chain.first(where: { $0.direction != nil })?.isRightToLeft ?? false }

    /// These texts with `own` (an imported flow's texts in this language) before every catalog.
    public func overlaid(with own: [String: String]) -> Messages {
        own.isEmpty ? self : Messages(chain: [MessageCatalog(tag: tag, direction: nil, messages: own)] + chain)
    }

    /// The text for `key` with `{name}` placeholders filled, or nil when no catalog in the chain has it.
    public func optionalText(_ key: String, _ values: [String: String] = [:]) -> String? {
        for catalog in chain {
            if let text = catalog.messages[key] { return Self.fill(text, values) }
        }
        return nil
    }

    /// The text for `key`; the key itself when no catalog has it (visible, and caught by the catalog tests).
    public func text(_ key: String, _ values: [String: String] = [:]) -> String {
        optionalText(key, values) ?? key
    }

    /// Every key under `prefix` (e.g. `widget.`), resolved through the chain, with placeholders left in.
    public func texts(withPrefix prefix: String) -> [String: String] {
        var texts: [String: String] = [:]
        for catalog in chain.reversed() {
            for (key, text) in catalog.messages where key.hasPrefix(prefix) { texts[key] = text }
        }
        return texts
    }

    /// The text for `key` with `{count}` filled, in the plural form `count` takes in the catalog's language:
    /// `<key>.<category>` (a CLDR cardinal category: `zero`, `one`, `two`, `few`, `many`) when that catalog has it, else
    /// `<key>`. Each catalog of the chain is asked for both before the next, so a German text never borrows an English
    /// singular. The key itself when no catalog has it.
    public func text(_ key: String, count: Int) -> String {
        let values = ["count": "\(count)"]
        for catalog in chain {
            let category = Self.pluralCategory(of: count, language: catalog.tag)
            if let text = catalog.messages["\(key).\(category)"] ?? catalog.messages[key] { return Self.fill(text, values) }
        }
        return key
    }

    /// CLDR's cardinal plural category of a whole number for the languages that ship and their kind: Arabic has six
    /// forms, French counts 0 as singular, most others (English, German, …) have `one` for 1 and `other` for the rest.
    static func pluralCategory(of count: Int, language tag: String) -> String {
        let language = tag.split(separator: "-").first.map { $0.lowercased() } ?? ""
        let n = abs(count)
        switch language {
        case "ar":
            switch n {
            case 0: return "zero"
            case 1: return "one"
            case 2: return "two"
            default:
                if (3...10).contains(n % 100) { return "few" }
                if (11...99).contains(n % 100) { return "many" }
                return "other"
            }
        case "fr": return n <= 1 ? "one" : "other"
        default: return n == 1 ? "one" : "other"
        }
    }

    static func fill(_ text: String, _ values: [String: String]) -> String {
        guard !values.isEmpty, text.contains("{") else { return text }
        var output = text
        for (name, value) in values { output = output.replacingOccurrences(of: "{\(name)}", with: value) }
        return output
    }
}
