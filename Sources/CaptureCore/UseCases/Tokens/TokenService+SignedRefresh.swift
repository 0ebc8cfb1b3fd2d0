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
        guard let signedAt = Self.parseSignatureDate(date) else {
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
        // A form body turns an unescaped '+' of the Base64 signature into a space; undo that.
        let presented = signature.replacingOccurrences(of: " ", with: "+")
        let expected = Data(
            HMAC<Insecure.SHA1>.authenticationCode(
                for: Data("refresh_access_token\n\(date)\n\(accessToken)\n".utf8), using: SymmetricKey(data: Data(secret.utf8)))
        ).base64EncodedString()
        guard ConstantTime.equals(presented, expected) else {
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
        if case .accountDisabled(let revoked) = outcome {
            // Deactivated since the lookup above.
            metrics.revoked(revoked, .accountDisabled)
            throw CaptureError.accountDeactivated
        }
        guard case .redeemed = outcome else { throw CaptureError.invalidAccessToken }
        metrics.issued([.access])
        return RefreshedAccess(accessToken: fresh, expiresIn: Int(lifetime), user: user)
    }

    /// `yyyy-MM-dd HH:mm:ss` in UTC, exactly.
    static func parseSignatureDate(_ text: String) -> Date? {
        // The length first (O(1)): this runs before the token is looked up, on whatever the caller sent.
        guard text.utf8.count == 19 else { return nil }
        let parts = text.split(whereSeparator: { "- :".contains($0) }).map { Int($0) }
        guard parts.count == 6, parts.allSatisfy({ $0 != nil }) else { return nil }
        var components = DateComponents()
        components.calendar = Calendar(identifier: .gregorian)
        components.timeZone = TimeZone(identifier: "UTC")
        (components.year, components.month, components.day) = (parts[0], parts[1], parts[2])
        (components.hour, components.minute, components.second) = (parts[3], parts[4], parts[5])
        guard components.isValidDate, let date = components.date else { return nil }
        return date
    }
}
