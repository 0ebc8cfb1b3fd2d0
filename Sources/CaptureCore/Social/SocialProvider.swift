import Foundation

/// A provider ready to use: its settings, secret, and endpoints (from discovery for OpenID Connect).
public struct SocialProvider: Sendable {
    public let settings: SocialProviderSettings
    let clientSecret: String?
    public let authorizationEndpoint: String
    public let tokenEndpoint: String
    public let userinfoEndpoint: String?
    /// RFC 7009: where refresh tokens are revoked when an account is deleted (`ProviderRevocation`).
    public let revocationEndpoint: String?
    /// OpenID Connect only: who signs the ID tokens, and where the keys are.
    public let issuer: String?
    public let jwksURI: String?
    /// `client_secret_post` puts the secret in the token request's body; otherwise `client_secret_basic`.
    let postsSecret: Bool

    public var name: String { settings.name }
    public var isOpenIDConnect: Bool { issuer != nil }
    var allowsPlainHTTP: Bool { settings.allowPlainHTTP == true }

    public var scopes: [String] {
        settings.scopes ?? (isOpenIDConnect ? ["openid", "email", "profile"] : [])
    }

    /// `client_secret_basic` (RFC 6749 §2.3.1: each part form-encoded first).
    var clientAuthorization: String? {
        guard let clientSecret, !postsSecret else { return nil }
        let pair = "\(FormBody.encode(settings.clientId)):\(FormBody.encode(clientSecret))"
        return "Basic " + Data(pair.utf8).base64EncodedString()
    }

    /// The client's identity in the token request's body: the id and, with `client_secret_post`, the secret; nothing
    /// when the secret goes in the Authorization header.
    var clientCredentialsInBody: [(String, String)] {
        guard let clientSecret else { return [("client_id", settings.clientId)] }
        return postsSecret ? [("client_id", settings.clientId), ("client_secret", clientSecret)] : []
    }

    /// Resolves one provider: OpenID Connect discovery (OIDC Discovery §4: the document's `issuer` must be the
    /// configured one), or the explicit OAuth 2.0 endpoints.
    static func resolve(
        _ settings: SocialProviderSettings, secret: String?, transport: any ProviderTransport
    ) async throws(ProviderUnreachable) -> SocialProvider {
        guard let issuer = settings.issuer else {
            return SocialProvider(
                settings: settings, clientSecret: secret, authorizationEndpoint: settings.authorizationEndpoint ?? "",
                tokenEndpoint: settings.tokenEndpoint ?? "", userinfoEndpoint: settings.userinfoEndpoint,
                revocationEndpoint: settings.revocationEndpoint, issuer: nil,
                jwksURI: nil, postsSecret: settings.tokenEndpointAuthMethod == "client_secret_post")
        }
        let base = issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer
        let reply = try await transport.send(
            ProviderCall(url: base + "/.well-known/openid-configuration", allowsPlainHTTP: settings.allowPlainHTTP == true))
        guard reply.status == 200, let document = reply.json else {
            throw ProviderUnreachable("discovery answered HTTP \(reply.status) without a configuration document")
        }
        guard document["issuer"]?.stringValue == issuer else {
            throw ProviderUnreachable("discovery names issuer '\(document["issuer"]?.stringValue ?? "")', not '\(issuer)'")
        }
        func endpoint(_ key: String) throws(ProviderUnreachable) -> String {
            guard let url = document[key]?.stringValue,
                SocialProviderSettings.isAllowedURL(url, plainHTTP: settings.allowPlainHTTP == true)
            else { throw ProviderUnreachable("discovery has no usable \(key)") }
            return url
        }
        // OIDC Discovery §3: without the list, client_secret_basic is what the provider takes.
        let supported =
            document["token_endpoint_auth_methods_supported"]?.arrayElements?.compactMap { $0.stringValue }
            ?? ["client_secret_basic"]
        let method =
            settings.tokenEndpointAuthMethod
            ?? (supported.contains("client_secret_basic") || !supported.contains("client_secret_post")
                ? "client_secret_basic" : "client_secret_post")
        return SocialProvider(
            settings: settings, clientSecret: secret, authorizationEndpoint: try endpoint("authorization_endpoint"),
            tokenEndpoint: try endpoint("token_endpoint"),
            userinfoEndpoint: settings.userinfoEndpoint ?? (try? endpoint("userinfo_endpoint")),
            revocationEndpoint: settings.revocationEndpoint ?? (try? endpoint("revocation_endpoint")), issuer: issuer,
            jwksURI: try endpoint("jwks_uri"), postsSecret: method == "client_secret_post")
    }
}

/// The configured providers that resolved at start-up, in the order of the settings, with their key sets.
public struct SocialProviders: Sendable {
    public let ordered: [SocialProvider]
    let keys: ProviderKeyCache
    let transport: (any ProviderTransport)?

    public static let none = SocialProviders(ordered: [], keys: ProviderKeyCache(), transport: nil)

    public init(ordered: [SocialProvider], keys: ProviderKeyCache, transport: (any ProviderTransport)?) {
        self.ordered = ordered
        self.keys = keys
        self.transport = transport
    }

    public func provider(named name: String) -> SocialProvider? { ordered.first { $0.name == name } }

    /// Resolves every configured provider; one that cannot be reached or described is reported by name and left
    /// out, never fatal (the others and traditional sign-in keep working).
    public static func discover(
        _ settings: [SocialProviderSettings], secrets: [String: String], transport: any ProviderTransport
    ) async -> (providers: SocialProviders, problems: [String]) {
        var resolved: [SocialProvider] = []
        var problems: [String] = []
        for entry in settings {
            do {
                resolved.append(try await SocialProvider.resolve(entry, secret: secrets[entry.name], transport: transport))
            } catch {
                problems.append("social provider '\(entry.name)' left out: \(error.reason)")
            }
        }
        return (SocialProviders(ordered: resolved, keys: ProviderKeyCache(), transport: transport), problems)
    }
}

/// Each provider's key set, fetched when first needed and again when a token names a key the cached set lacks, or
/// (for providers that name no key) when the cached set did not verify a token — key rotation — at most once a minute
/// per provider, so a stream of forged tokens cannot make us hammer it.
public actor ProviderKeyCache {
    private var sets: [String: (keys: JSONWebKeySet, fetchedAt: Date)] = [:]
    static let refetchAfter: TimeInterval = 60

    public init() {}

    func keys(
        for provider: SocialProvider, transport: any ProviderTransport, now: Date, wanting keyID: String?,
        distrustingCached: Bool = false
    ) async throws(ProviderUnreachable) -> JSONWebKeySet {
        if let cached = sets[provider.name] {
            let lacksKey = keyID.map { !cached.keys.containsKey(id: $0) } ?? false
            if !(lacksKey || distrustingCached) || now.timeIntervalSince(cached.fetchedAt) < Self.refetchAfter {
                return cached.keys
            }
        }
        guard let uri = provider.jwksURI else { throw ProviderUnreachable("the provider publishes no keys") }
        let reply = try await transport.send(ProviderCall(url: uri, allowsPlainHTTP: provider.allowsPlainHTTP))
        guard reply.status == 200, let json = reply.json, let keys = JSONWebKeySet(json: .object(json)) else {
            throw ProviderUnreachable("the key set answered HTTP \(reply.status) without keys")
        }
        sets[provider.name] = (keys, now)
        return keys
    }
}
