import Foundation

/// A document people accept to use a client (terms of service, a privacy notice), as `service.json`'s
/// `legalDocuments` lists it. A new `version` asks everyone who accepted an older one again at their next sign-in.
public struct LegalDocument: Sendable, Equatable, Codable {
    /// Janrain's `legalAcceptanceId`: `[a-z0-9_-]`, at most 64.
    public var id: String
    public var version: String
    /// The title by language (`en`, `de`, …); the first of `en` and the sorted languages stands in for others.
    public var title: [String: String]
    public var url: String
    /// The clients that require it; every client when unset.
    public var clients: [String]?

    public init(id: String, version: String, title: [String: String], url: String, clients: [String]? = nil) {
        self.id = id
        self.version = version
        self.title = title
        self.url = url
        self.clients = clients
    }

    /// How a caller names what it accepts (`accept_documents`): `id:version`.
    public var reference: String { "\(id):\(version)" }

    func applies(to clientID: String) -> Bool { clients.map { $0.contains(clientID) } ?? true }

    /// The title in the language of `locale` (`de-DE` → `de`), else English, else the first language's.
    public func title(for locale: String?) -> String {
        let language = locale.flatMap { $0.split(separator: "-").first.map { String($0).lowercased() } }
        return language.flatMap { title[$0] } ?? title["en"] ?? title.keys.sorted().first.flatMap { title[$0] } ?? id
    }

    public func problem() -> (key: String, problem: String)? {
        if id.isEmpty || id.utf8.count > 64
            || !id.utf8.allSatisfy({ ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 45 || $0 == 95 })
        {
            return ("id", "must be 1-64 characters of a-z, 0-9, '-' and '_'")
        }
        if version.isEmpty || version.utf8.count > 64 || version.contains(" ") || version.contains(":") {
            return ("version", "must be 1-64 characters without spaces or ':'")
        }
        if title.isEmpty || title.values.contains(where: \.isEmpty) { return ("title", "give a title per language") }
        guard let parsed = URL(string: url), ["https", "http"].contains(parsed.scheme?.lowercased() ?? "") else {
            return ("url", "must be an http(s) URL")
        }
        return nil
    }
}

/// A document as a refusal names it to the person: its title in their language.
public struct AgreementDocument: Sendable, Equatable {
    public var id: String
    public var version: String
    public var title: String
    public var url: String

    public init(_ document: LegalDocument, locale: String?) {
        id = document.id
        version = document.version
        title = document.title(for: locale)
        url = document.url
    }

    public var reference: String { "\(id):\(version)" }
}
