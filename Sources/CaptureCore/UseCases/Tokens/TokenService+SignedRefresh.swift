import Crypto
import Foundation

/// The outcome of `/oauth/refresh_access_token`.
public struct RefreshedAccess: Sendable, Equatable {
    public var accessToken: String
    public var expiresIn: Int
    /// The token's user: jump.android's `fetchCaptureUserFromServer` reads `capture_user` from this reply.
    public var user: User
}

extension TokenService {
    /// How far a signed refresh's `date` may be from the service's clock.
    static let signedRefreshClockSkew: TimeInterval = 300

    /// Janrain's signed refresh (jump.ios/jump.android): `signature` = Base64(HMAC-SHA1(refresh_secret,
    /// "refresh_access_token\n" + date + "\n" + access_token + "\n")), with the `refresh_secret` the SDK sent at
    /// sign-in. The access token may have expired (that is the point) but not been revoked or refreshed already;
    /// it is replaced by a new one in the same chain, and presenting it again revokes the chain.
    public func refreshSigned(
        accessToken: String?, date: String?, signature: String?, clientID: String?
    ) async throws
        -> RefreshedAccess
    {
        guard let accessToken, !accessToken.isEmpty else { throw CaptureError.missingArgument("access_token") }
        guard let date, !date.isEmpty else { throw CaptureError.missingArgument("date") }
        guard let signature, !signature.isEmpty else { throw CaptureError.missingArgument("signature") }
        guard let signedAt = JanrainSignature.date(date) else {
            throw CaptureError.invalidArgument("date", "must be UTC 'yyyy-MM-dd HH:mm:ss'")
        }
        let now = time.now()
        guard abs(now.timeIntervalSince(signedAt)) <= Self.signedRefreshClockSkew else {
            throw CaptureError.invalidArgument("date", "is more than 5 minutes away from the service's clock")
        }
        guard let lookup = try await checks.check(TokenMinter.key(accessToken), .user),
            lookup.record.kind == .access, clientID.map({ $0 == lookup.record.clientID }) ?? true
        else { throw CaptureError.invalidAccessToken }
        let (stored, user) = (lookup.record, lookup.user)
        if stored.revokedAt != nil { throw CaptureError.invalidAccessToken }
        if now.timeIntervalSince(stored.issuedAt) > settings.refreshTokenLifetime { throw CaptureError.accessTokenExpired }
        guard let secret = stored.refreshSecret else {
            throw CaptureError.notPermitted("this session was started without a refresh_secret")
        }
        guard JanrainSignature.verifies(signature, text: "refresh_access_token\n\(date)\n\(accessToken)\n", secret: secret)
        else {
            throw CaptureError.invalidArgument("signature", "does not match the access token, date and refresh_secret")
        }
        // The lookup already brought the user: a deactivated account ends the session here (a deleted one took
        // its tokens with it).
        guard let user, !user.isDisabled else {
            metrics.revoked(try await tokens.revokeChain(stored.chainID, of: stored.userID, at: now), .accountDisabled)
            throw CaptureError.accountDeactivated
        }

        let client = try await clientAccess.client(id: stored.clientID, version: lookup.clientsVersion)
        try await provenAddress.requireProvenAddress(of: user, client: client)
        let fresh = issuer.mintToken()
        let lifetime = issuer.accessLifetime(for: client)
        let outcome = try await tokens.redeem(
            hash: stored.hash, kind: .access, now: now, client: stored.clientID, allowExpired: true
        ) { [key = TokenMinter.key(fresh)] old in
            [TokenIssuer.record(.access, key: key, following: old, issuedAt: now, expiresAt: now + lifetime)]
        }
        if case .reused(let revoked) = outcome {
            metrics.revoked(revoked, .reuse)
            await audit.recordSecurityEvent(
                "token.reuse", target: stored.fingerprint, outcome: "chain_revoked",
                detail: "a signed refresh was replayed by \(stored.clientID); its chain is revoked")
        }
        if case .accountDisabled(let revoked) = outcome {
            // Deactivated since the lookup above.
            metrics.revoked(revoked, .accountDisabled)
            throw CaptureError.accountDeactivated
        }
        guard case .redeemed = outcome else { throw CaptureError.invalidAccessToken }
        metrics.issued([.access])
        return RefreshedAccess(accessToken: fresh, expiresIn: Int(lifetime), user: user)
    }
}
