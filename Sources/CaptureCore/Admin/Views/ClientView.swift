import Foundation

/// A client for operators; the secret's hash is left out. `clientSecret` (and `note`) only once, when one is made.
public struct ClientView: Codable, Sendable, Equatable {
    public var clientID: String
    public var name: String
    /// `confidential` or `public`.
    public var type: String
    public var confidential: Bool
    public var redirectURIs: [String]
    public var allowedOrigins: [String]
    public var responseTypes: [String]
    public var legacyTokenURL: Bool
    public var accessTokenLifeHours: Double?
    /// Janrain's client settings of the same names (`ClientPages`).
    public var siteName: String?
    public var verifyEmailURL: String?
    public var passwordRecoverURL: String?
    /// Janrain's client features, sorted by name.
    public var features: [String]
    /// Addresses or CIDR ranges its server API calls may come from; empty: anywhere.
    public var whitelist: [String]
    public var createdAt: Date
    /// Left out unless a secret was just made.
    public var clientSecret: String?
    public var note: String?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case name, type, confidential, note, features, whitelist
        case clientID = "client_id", redirectURIs = "redirect_uris", allowedOrigins = "allowed_origins"
        case responseTypes = "response_types", legacyTokenURL = "legacy_token_url"
        case accessTokenLifeHours = "access_token_life_hours", createdAt = "created_at", clientSecret = "client_secret"
        case siteName = "site_name", verifyEmailURL = "verify_email_url", passwordRecoverURL = "password_recover_url"
    }

    /// `pages`: the client's own settings of those names (`ClientAdministration.ownPages`).
    public init(_ client: Client, pages: ClientPages = ClientPages(), secret: String? = nil) {
        clientID = client.clientID
        name = client.name
        type = client.isConfidential ? "confidential" : "public"
        confidential = client.isConfidential
        redirectURIs = client.redirectURIs
        allowedOrigins = client.allowedOrigins
        responseTypes = client.responseTypes.map(\.rawValue)
        legacyTokenURL = client.legacyTokenURL
        accessTokenLifeHours = client.accessTokenLifeHours
        siteName = pages.siteName
        verifyEmailURL = pages.verifyEmailURL
        passwordRecoverURL = pages.passwordRecoverURL
        features = client.features.sorted().map(\.rawValue)
        whitelist = client.whitelist
        createdAt = client.createdAt
        clientSecret = secret
        note = secret.map { _ in AdminDocuments.secretNote }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(clientID, forKey: .clientID)
        try container.encode(name, forKey: .name)
        try container.encode(type, forKey: .type)
        try container.encode(confidential, forKey: .confidential)
        try container.encode(redirectURIs, forKey: .redirectURIs)
        try container.encode(allowedOrigins, forKey: .allowedOrigins)
        try container.encode(responseTypes, forKey: .responseTypes)
        try container.encode(legacyTokenURL, forKey: .legacyTokenURL)
        try container.encode(accessTokenLifeHours, forKey: .accessTokenLifeHours)
        try container.encode(siteName, forKey: .siteName)
        try container.encode(verifyEmailURL, forKey: .verifyEmailURL)
        try container.encode(passwordRecoverURL, forKey: .passwordRecoverURL)
        try container.encode(features, forKey: .features)
        try container.encode(whitelist, forKey: .whitelist)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encodeIfPresent(clientSecret, forKey: .clientSecret)
        try container.encodeIfPresent(note, forKey: .note)
    }
}
