import CaptureJSON
import Crypto
import Foundation

/// The claims of an ID token this provider issues (OpenID Connect Core §2, §3.1.3.6): who (`sub`, the record's
/// uuid), for whom (`aud`, `azp`), by whom (`iss`), when (`iat`, `exp`, `auth_time`), how (`amr`, `acr`), the sign-in's
/// `nonce` (only in the token the code is exchanged for), the access token it came with (`at_hash`) and the browser
/// session (`sid`). Profile claims are not copied in: they come from userinfo, as the scopes allow.
public enum IDTokenClaims {
    public static func claims(
        of grant: OIDCGrant, accessToken: String?, includeNonce: Bool, now: Date, lifetime: TimeInterval
    ) -> [String: JSONValue] {
        var claims: [String: JSONValue] = [
            "iss": .string(grant.issuer), "sub": .string(grant.userID), "aud": .string(grant.clientID),
            "azp": .string(grant.clientID), "iat": .int(Int64(now.timeIntervalSince1970)),
            "exp": .int(Int64((now + lifetime).timeIntervalSince1970)),
            "auth_time": .int(Int64(grant.authTime.timeIntervalSince1970)),
            "amr": .array(grant.methods.map(JSONValue.string)), "sid": .string(grant.sessionID),
        ]
        if includeNonce, let nonce = grant.nonce { claims["nonce"] = .string(nonce) }
        if let acr = grant.acr { claims["acr"] = .string(acr) }
        if let accessToken { claims["at_hash"] = .string(tokenHash(accessToken)) }
        return claims
    }

    /// `at_hash`: the left half of the access token's SHA-256, base64url (both RS256 and ES256 hash with SHA-256).
    public static func tokenHash(_ token: String) -> String {
        Data(SHA256.hash(data: Data(token.utf8)).prefix(16)).base64URLEncoded()
    }
}
