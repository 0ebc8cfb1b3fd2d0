import CaptureJSON
import Foundation

/// Who the user is at the provider, once the provider's answer checked out.
struct ProviderIdentity: Sendable {
    var subject: String
    var claims: [String: JSONValue]
    /// The provider's refresh token, kept only when the provider can revoke it (`ProviderRevocation`).
    var refreshToken: String? = nil
}

/// A provider answer that did not check out: `code` goes to the page (which explains it), `reason` to the log.
struct SocialFailure: Error {
    var code: String
    var reason: String
}

/// What a provider proves about a person: its code or token exchanged and its ID token checked.
public struct ProviderIdentities: Sendable {
    let social: SocialProviders
    let settings: ServiceSettings
    let time: any TimeSource
}

extension ProviderIdentities {
    /// Code → tokens at the token endpoint (the client's credentials, the PKCE verifier), then the ID token (OpenID
    /// Connect) checked against the provider's keys and this sign-in's nonce, and userinfo where the provider has one.
    func identify(code: String, login: SocialLogin, provider: SocialProvider) async throws -> ProviderIdentity {
        let transport = try providerTransport()
        var form = [
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", settings.socialCallbackURL),
            ("code_verifier", login.codeVerifier),
        ]
        form += provider.clientCredentialsInBody
        let reply = try await send(
            ProviderCall(
                method: .post, url: provider.tokenEndpoint, form: form, authorization: provider.clientAuthorization,
                allowsPlainHTTP: provider.allowsPlainHTTP), transport)
        guard reply.status == 200, let tokens = reply.json, let accessToken = tokens["access_token"]?.stringValue else {
            throw SocialFailure(code: "provider_error", reason: "the token endpoint answered HTTP \(reply.status)")
        }
        var claims: [String: JSONValue] = [:]
        if provider.isOpenIDConnect {
            guard let idToken = tokens["id_token"]?.stringValue else {
                throw SocialFailure(code: "invalid_id_token", reason: "no id_token in the token reply")
            }
            claims = try await verifiedClaims(
                idToken, provider: provider, audiences: [provider.settings.clientId], nonce: login.nonce, transport)
        }
        if provider.userinfoEndpoint != nil {
            claims = try await adding(userinfoFor: accessToken, to: claims, provider: provider, transport)
        }
        var identity = try identity(from: claims)
        if provider.revocationEndpoint != nil { identity.refreshToken = tokens["refresh_token"]?.stringValue }
        return identity
    }

    /// A sign-in the app already made with the provider's own SDK (Sign in with Google, …): its ID token, issued to
    /// our client id at the provider or one of `nativeClientIds` (the SDK's nonce is its own), or — only where the
    /// provider's settings accept them — its access token, which the provider's userinfo must accept.
    func identify(nativeToken token: String, provider: SocialProvider) async throws -> ProviderIdentity {
        let transport = try providerTransport()
        if provider.isOpenIDConnect, token.split(separator: ".", omittingEmptySubsequences: false).count == 3 {
            let audiences = [provider.settings.clientId] + (provider.settings.nativeClientIds ?? [])
            return try identity(
                from: try await verifiedClaims(token, provider: provider, audiences: audiences, nonce: nil, transport))
        }
        guard provider.settings.acceptAccessTokens == true, provider.userinfoEndpoint != nil else {
            throw SocialFailure(
                code: "invalid_token", reason: "\(provider.name) takes an ID token from a native sign-in, not an access token")
        }
        return try identity(from: try await adding(userinfoFor: token, to: [:], provider: provider, transport))
    }

    // MARK: parts

    private func providerTransport() throws -> any ProviderTransport {
        guard let transport = social.transport else { throw SocialFailure(code: "provider_unreachable", reason: "no transport") }
        return transport
    }

    private func send(_ call: ProviderCall, _ transport: any ProviderTransport) async throws -> ProviderReply {
        do {
            return try await transport.send(call)
        } catch {
            throw SocialFailure(code: "provider_unreachable", reason: error.reason)
        }
    }

    /// What userinfo says about the holder of `accessToken`, under what the ID token said (which wins).
    private func adding(
        userinfoFor accessToken: String, to claims: [String: JSONValue], provider: SocialProvider,
        _ transport: any ProviderTransport
    ) async throws -> [String: JSONValue] {
        guard let userinfo = provider.userinfoEndpoint else { return claims }
        let info = try await send(
            ProviderCall(url: userinfo, authorization: "Bearer \(accessToken)", allowsPlainHTTP: provider.allowsPlainHTTP),
            transport)
        guard info.status == 200, var fields = info.json else {
            throw SocialFailure(code: "provider_error", reason: "userinfo answered HTTP \(info.status)")
        }
        // OIDC Core §5.3.2: userinfo must be about the ID token's subject.
        if fields["sub"] == nil, let id = fields["id"] { fields["sub"] = .string(id.stringValue ?? id.compactText) }
        if let subject = claims["sub"], fields["sub"] != subject {
            throw SocialFailure(code: "invalid_id_token", reason: "userinfo is about another subject")
        }
        return fields.merging(claims) { _, fromToken in fromToken }
    }

    private func identity(from claims: [String: JSONValue]) throws -> ProviderIdentity {
        guard let subject = claims["sub"]?.stringValue, !subject.isEmpty, subject.utf8.count <= 255 else {
            throw SocialFailure(code: "provider_error", reason: "the provider named no subject")
        }
        return ProviderIdentity(subject: subject, claims: claims)
    }

    private func verifiedClaims(
        _ idToken: String, provider: SocialProvider, audiences: [String], nonce: String?, _ transport: any ProviderTransport
    ) async throws -> [String: JSONValue] {
        do {
            let token = try IDToken(compact: idToken)
            func verify(distrustingCachedKeys: Bool) async throws -> [String: JSONValue] {
                let keys = try await social.keys.keys(
                    for: provider, transport: transport, now: time.now(), wanting: token.keyID,
                    distrustingCached: distrustingCachedKeys)
                return try token.verifiedClaims(
                    keys: keys, issuer: provider.issuer ?? "", audiences: audiences, nonce: nonce, now: time.now())
            }
            do {
                return try await verify(distrustingCachedKeys: false)
            } catch IDTokenProblem.badSignature where token.keyID == nil {
                // A provider that names no key (`kid`) may have rotated it: the set once more, then a last try.
                return try await verify(distrustingCachedKeys: true)
            }
        } catch let problem as IDTokenProblem {
            throw SocialFailure(code: "invalid_id_token", reason: problem.reason)
        } catch let unreachable as ProviderUnreachable {
            throw SocialFailure(code: "provider_unreachable", reason: unreachable.reason)
        }
    }
}
