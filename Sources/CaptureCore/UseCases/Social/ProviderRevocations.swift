import CaptureJSON
import Foundation

/// What one try at a provider's revocation endpoint came to.
enum ProviderRevocationOutcome: Equatable {
    case revoked
    /// Worth another try later (the provider down, refusing our credentials, not configured at this start).
    case failed(String)
    /// No try can ever succeed (the token cannot be opened, the provider does not take refresh tokens back).
    case givenUp(String)
}

/// Providers' refresh tokens revoked when a link ends, retried in the background.
public struct ProviderRevocations: Sendable {
    let providerRevocations: any ProviderRevocationRepository
    let social: SocialProviders
    let codeKey: CodeKey
    let time: any TimeSource
    let audit: AuditTrail
}

extension ProviderRevocations {
    /// Account deletion and erasure: the refresh tokens kept with the person's linked accounts are queued and tried
    /// at once in the background. Nothing here waits for a provider: the deletion goes on whatever they answer, and
    /// a failed try is audited and tried again by the purge pass.
    func revokeProviderTokens(of user: User) async throws {
        guard try await providerRevocations.queue(fromLinksOf: user.id, at: time.now()) > 0 else { return }
        revokeInTheBackground()
    }

    /// A new sign-in with a provider brought a new refresh token for the link: the one it replaces is no longer
    /// needed and is revoked, so the account holds one grant at the provider at most.
    func revokeReplacedProviderToken(of identity: LinkedIdentity, by login: SocialLogin) async throws {
        guard let kept = identity.providerToken, login.providerToken != nil, kept != login.providerToken else { return }
        try await providerRevocations.queue(kept, provider: identity.provider, at: time.now())
        revokeInTheBackground()
    }

    private func revokeInTheBackground() {
        let service = self
        Task { _ = try? await service.revokeDueProviderTokens() }
    }

    /// One pass over the revocations due (the purge pass runs it): each is tried once; a token the provider took back
    /// or that can never be revoked leaves the queue, a failure waits longer each time (`ProviderRevocation.retry`)
    /// and is given up after `maximumAttempts`. Every outcome is an audit row about the provider. Returns how many
    /// tokens the providers took back.
    @discardableResult public func revokeDueProviderTokens() async throws -> Int {
        var revoked = 0
        for revocation in try await providerRevocations.due(at: time.now(), limit: ProviderRevocation.perPass) {
            let outcome = await revoke(revocation)
            let attempts = revocation.attempts + 1
            switch outcome {
            case .revoked:
                revoked += 1
                try await providerRevocations.remove(id: revocation.id)
                await audit.recordSecurityEvent("provider.token_revoked", target: revocation.provider)
            case .failed(let reason) where attempts < ProviderRevocation.maximumAttempts:
                try await providerRevocations.postpone(
                    id: revocation.id, attempts: attempts,
                    until: ProviderRevocation.retry(after: attempts, from: time.now()), error: reason)
                await audit.recordSecurityEvent(
                    "provider.token_revoked", target: revocation.provider, outcome: "failed",
                    detail: "try \(attempts) of \(ProviderRevocation.maximumAttempts): \(reason)")
            case .failed(let reason), .givenUp(let reason):
                try await providerRevocations.remove(id: revocation.id)
                await audit.recordSecurityEvent(
                    "provider.token_revoked", target: revocation.provider, outcome: "given_up",
                    detail: "given up after \(attempts) tries: \(reason)")
            }
        }
        return revoked
    }

    /// RFC 7009 §2.1: the token with its hint, authenticated as at the token endpoint.
    private func revoke(_ revocation: ProviderRevocation) async -> ProviderRevocationOutcome {
        guard let bytes = codeKey.unseal(revocation.sealedToken), let token = String(bytes: bytes, encoding: .utf8) else {
            return .givenUp("the token was sealed under another code key")
        }
        guard let provider = social.provider(named: revocation.provider), let transport = social.transport else {
            return .failed("the provider is not configured or did not resolve at start-up")
        }
        guard let endpoint = provider.revocationEndpoint else {
            return .givenUp("the provider has no revocation endpoint")
        }
        let call = ProviderCall(
            method: .post, url: endpoint,
            form: [("token", token), ("token_type_hint", "refresh_token")] + provider.clientCredentialsInBody,
            authorization: provider.clientAuthorization, allowsPlainHTTP: provider.allowsPlainHTTP)
        let reply: ProviderReply
        do {
            reply = try await transport.send(call)
        } catch {
            return .failed(error.reason)
        }
        // §2.2: 200 whether or not the token was still valid; §2.2.1: a provider that cannot revoke refresh tokens.
        if reply.status == 200 { return .revoked }
        if reply.json?["error"]?.stringValue == "unsupported_token_type" {
            return .givenUp("the provider does not revoke refresh tokens")
        }
        return .failed("the revocation endpoint answered HTTP \(reply.status)")
    }
}
