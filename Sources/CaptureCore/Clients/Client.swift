import Foundation

/// A registered app or backend: who may ask for tokens, and where they may be sent.
public struct Client: Sendable, Equatable, Codable {
    public var clientID: String
    public var name: String
    /// SHA-256 hex of the secret; nil for a public (native) client.
    public var secretHash: String?
    /// Absolute URLs, or paths starting with "/" that resolve against the service's public origin.
    public var redirectURIs: [String]
    public var allowedOrigins: [String]
    public var responseTypes: [String]
    public var legacyTokenURL: Bool
    public var accessTokenLifeHours: Double?
    public var createdAt: Date

    public init(
        clientID: String, name: String, secretHash: String? = nil, redirectURIs: [String] = [],
        allowedOrigins: [String] = [], responseTypes: [String] = ["token"], legacyTokenURL: Bool = false,
        accessTokenLifeHours: Double? = nil, createdAt: Date
    ) {
        self.clientID = clientID
        self.name = name
        self.secretHash = secretHash
        self.redirectURIs = redirectURIs
        self.allowedOrigins = allowedOrigins
        self.responseTypes = responseTypes
        self.legacyTokenURL = legacyTokenURL
        self.accessTokenLifeHours = accessTokenLifeHours
        self.createdAt = createdAt
    }

    public var isConfidential: Bool { secretHash != nil }
}

/// Rules about client ids, redirect URIs and response types, shared by settings, the CLI and the service.
public enum ClientRules {
    public static let responseTypes: Set<String> = ["token", "code", "code_and_token"]
    /// The response types this version issues; `code` and `code_and_token` (with PKCE) come with the
    /// "tokens as a service" work (ROADMAP.md), and a client cannot be given them before they work.
    public static let offeredResponseTypes: Set<String> = ["token"]

    /// Why `type` cannot be given to a client, or nil when it can.
    public static func problem(withResponseType type: String) -> String? {
        if !responseTypes.contains(type) { return "unknown response type '\(type)'" }
        if !offeredResponseTypes.contains(type) { return "response type '\(type)' is not offered yet (only token)" }
        return nil
    }

    public static func isValidClientID(_ id: String) -> Bool {
        (3...64).contains(id.count)
            && id.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) || "-_.".unicodeScalars.contains($0) }
            && id.allSatisfy(\.isASCII)
    }

    public static func isValidRedirectPattern(_ uri: String) -> Bool {
        if uri.hasPrefix("/") { return !uri.hasPrefix("//") }
        return URLOrigin(uri) != nil
    }

    /// Exact origin + path match against the allow-list; query and fragment of the candidate are ignored.
    /// Returns the matching registered value, or nil.
    public static func matchRedirect(_ candidate: String, allowed: [String], publicOrigin: String) -> String? {
        guard let components = URLComponents(string: candidate), let origin = URLOrigin(candidate) else { return nil }
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        for entry in allowed {
            let absolute = entry.hasPrefix("/") ? publicOrigin + entry : entry
            guard let allowedComponents = URLComponents(string: absolute), let allowedOrigin = URLOrigin(absolute)
            else { continue }
            let allowedPath = allowedComponents.percentEncodedPath.isEmpty ? "/" : allowedComponents.percentEncodedPath
            if allowedOrigin == origin && allowedPath == path { return absolute }
        }
        return nil
    }
}
