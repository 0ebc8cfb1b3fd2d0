import Foundation

/// Every shipped and configured locale, and how a request's language picks one: the page's or the call's `locale`
/// first, then `Accept-Language` (RFC 9110 §12.5.4, by quality), then the flow's own; each tried with its BCP 47
/// fallbacks (`de-AT` → `de`), the default (English) last of all.
public struct Localization: Sendable, Equatable {
    public static let defaultTag = "en"
    /// Lower-cased tag → catalog.
    let catalogs: [String: MessageCatalog]

    public init(catalogs: [MessageCatalog]) {
        self.catalogs = Dictionary(catalogs.map { ($0.tag.lowercased(), $0) }) { first, _ in first }
    }

    /// The tags of every catalog, sorted.
    public var tags: [String] { catalogs.values.map(\.tag).sorted() }

    public func catalog(_ tag: String) -> MessageCatalog? { catalogs[tag.lowercased()] }

    /// The texts for `tag` with its fallbacks: `de-AT` → `de` → default.
    public func messages(for tag: String?) -> Messages {
        var chain: [MessageCatalog] = []
        for candidate in Self.prefixes(of: tag ?? "") + [Self.defaultTag] {
            if let catalog = catalogs[candidate.lowercased()], !chain.contains(where: { $0.tag == catalog.tag }) {
                chain.append(catalog)
            }
        }
        return Messages(chain: chain)
    }

    /// The language a request is answered in: the first of `explicit`, the `Accept-Language` ranges by quality, and
    /// `fallback` that some catalog speaks (itself or a shorter prefix); the default when none does. The tag
    /// returned is the requested one (`de-AT`, which `messages(for:)` resolves), so dates and numbers can follow it.
    public func negotiate(explicit: String?, acceptLanguage: String?, fallback: String?) -> String {
        let candidates = [explicit].compactMap { $0 } + Self.ranges(acceptLanguage) + [fallback].compactMap { $0 }
        for candidate in candidates where Self.isLanguageTag(candidate) {
            if Self.prefixes(of: candidate).contains(where: { catalogs[$0.lowercased()] != nil }) { return candidate }
        }
        return Self.defaultTag
    }

    /// `de-AT-1996` → [`de-AT-1996`, `de-AT`, `de`].
    static func prefixes(of tag: String) -> [String] {
        let parts = tag.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
        guard !tag.isEmpty else { return [] }
        return (1...parts.count).reversed().map { parts.prefix($0).joined(separator: "-") }
    }

    /// `Accept-Language`'s language ranges, best first (q=0 and `*` dropped; ties keep their order).
    static func ranges(_ header: String?) -> [String] {
        guard let header, !header.isEmpty else { return [] }
        var weighted: [(tag: String, quality: Double, index: Int)] = []
        for (index, item) in header.split(separator: ",").prefix(32).enumerated() {
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let tag = parts.first, !tag.isEmpty, tag != "*" else { continue }
            var quality = 1.0
            for parameter in parts.dropFirst() where parameter.lowercased().hasPrefix("q=") {
                quality = Double(parameter.dropFirst(2)) ?? 0
            }
            if quality > 0 { weighted.append((tag, quality, index)) }
        }
        return weighted.sorted { $0.quality != $1.quality ? $0.quality > $1.quality : $0.index < $1.index }.map(\.tag)
    }

    /// A simple BCP 47 shape: 2–3 letters, then up to three 2–8 character alphanumeric subtags.
    public static func isLanguageTag(_ tag: String) -> Bool {
        let parts = tag.split(separator: "-", omittingEmptySubsequences: false)
        guard let language = parts.first, (2...3).contains(language.count),
            language.allSatisfy({ $0.isASCII && $0.isLetter }), parts.count <= 4
        else { return false }
        return parts.dropFirst().allSatisfy { part in
            (2...8).contains(part.count) && part.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
        }
    }
}

extension Localization {
    /// Reads every `*.json` in `directory` (`Settings/locales`); the default locale's file must exist. A file that is
    /// not a catalog is a settings error naming it.
    public static func load(directory: URL) throws -> Localization {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        var catalogs: [MessageCatalog] = []
        for file in files.sorted() where file.hasSuffix(".json") {
            let url = directory.appendingPathComponent(file)
            var catalog = try SettingsDecoding.decode(MessageCatalog.self, from: url)
            catalog.tag = String(file.dropLast(".json".count))
            guard isLanguageTag(catalog.tag) else {
                throw SettingsError(
                    file: url.path, key: "(file name)", problem: "'\(catalog.tag)' is not a language tag such as de or pt-BR")
            }
            if let direction = catalog.direction, direction != "ltr" && direction != "rtl" {
                throw SettingsError(file: url.path, key: "direction", problem: "must be ltr or rtl")
            }
            catalogs.append(catalog)
        }
        guard catalogs.contains(where: { $0.tag == defaultTag }) else {
            throw SettingsError(
                file: directory.appendingPathComponent("\(defaultTag).json").path, key: "(file)",
                problem: "the default locale's catalog is missing")
        }
        return Localization(catalogs: catalogs)
    }
}
