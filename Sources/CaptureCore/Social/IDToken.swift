import CaptureJSON
import Crypto
import CryptoExtras
import Foundation

/// Why an ID token was refused; the reason is shown to nobody but logs and the page's `onProviderLoginError`.
public enum IDTokenProblem: Error, Equatable, Sendable {
    case malformed
    case unsupportedAlgorithm(String)
    /// No key of the provider's set has this `kid` (the set may have rotated: fetch it again once).
    case unknownKey(String?)
    case badSignature
    case wrongIssuer
    case wrongAudience
    case expired
    case issuedInTheFuture
    case wrongNonce
    case missingSubject

    public var reason: String {
        switch self {
        case .malformed: "the ID token is not a signed JWT"
        case .unsupportedAlgorithm(let alg): "the ID token is signed with \(alg); RS256 and ES256 are accepted"
        case .unknownKey: "the ID token names a key the provider does not publish"
        case .badSignature: "the ID token's signature does not verify"
        case .wrongIssuer: "the ID token comes from another issuer"
        case .wrongAudience: "the ID token was issued to another client"
        case .expired: "the ID token has expired"
        case .issuedInTheFuture: "the ID token is dated in the future"
        case .wrongNonce: "the ID token does not carry this sign-in's nonce"
        case .missingSubject: "the ID token names no subject"
        }
    }
}

/// An OpenID Connect ID token (a compact JWS), checked as OpenID Connect Core §3.1.3.7 asks: signature against
/// the provider's keys, `iss`, `aud` (and `azp` when there are several audiences), `exp`, `iat`, `nonce`, `sub`.
public struct IDToken: Sendable {
    public let header: [String: JSONValue]
    public let claims: [String: JSONValue]
    let signingInput: Data
    let signature: Data

    /// Tokens are small; anything larger is not one.
    static let maxBytes = 16_384

    public init(compact: String) throws(IDTokenProblem) {
        guard compact.utf8.count <= Self.maxBytes else { throw .malformed }
        let parts = compact.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerData = Data(base64URLEncoded: parts[0]),
            let claimsData = Data(base64URLEncoded: parts[1]),
            let signature = Data(base64URLEncoded: parts[2]),
            case .object(let header) = try? JSONParser.parse(headerData),
            case .object(let claims) = try? JSONParser.parse(claimsData)
        else { throw .malformed }
        self.header = header
        self.claims = claims
        self.signingInput = Data("\(parts[0]).\(parts[1])".utf8)
        self.signature = signature
    }

    public var keyID: String? { header["kid"]?.stringValue }

    public func verifySignature(with keys: JSONWebKeySet) throws(IDTokenProblem) {
        guard let algorithm = header["alg"]?.stringValue else { throw .malformed }
        guard algorithm == "RS256" || algorithm == "ES256" else { throw .unsupportedAlgorithm(algorithm) }
        let candidates = keys.candidates(keyID: keyID, algorithm: algorithm)
        guard !candidates.isEmpty else { throw .unknownKey(keyID) }
        let digest = SHA256.hash(data: signingInput)
        for key in candidates {
            switch key {
            case .rsa(let publicKey):
                let rsa = _RSA.Signing.RSASignature(rawRepresentation: signature)
                if publicKey.isValidSignature(rsa, for: digest, padding: .insecurePKCS1v1_5) { return }
            case .p256(let publicKey):
                if let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: signature),
                    publicKey.isValidSignature(ecdsa, for: digest)
                {
                    return
                }
            }
        }
        throw .badSignature
    }

    /// The claims, once every check passes. `audiences`: the client ids the token may be for (ours at the provider,
    /// and those of apps that sign in with the provider's own SDK); `nonce`: the sign-in's, or nil for a token a
    /// native SDK obtained with a nonce of its own.
    public func verifiedClaims(
        keys: JSONWebKeySet, issuer: String, audiences accepted: [String], nonce: String?, now: Date,
        leeway: TimeInterval = 60
    ) throws(IDTokenProblem) -> [String: JSONValue] {
        try verifySignature(with: keys)
        guard claims["iss"]?.stringValue == issuer else { throw .wrongIssuer }
        let audiences: [String]
        switch claims["aud"] {
        case .string(let one): audiences = [one]
        case .array(let many): audiences = many.compactMap(\.stringValue)
        default: throw .wrongAudience
        }
        guard audiences.contains(where: accepted.contains) else { throw .wrongAudience }
        if audiences.count > 1, !accepted.contains(claims["azp"]?.stringValue ?? "") { throw .wrongAudience }
        guard let expires = number("exp"), now.timeIntervalSince1970 < expires + leeway else { throw .expired }
        guard let issued = number("iat"), issued <= now.timeIntervalSince1970 + leeway else { throw .issuedInTheFuture }
        if let nonce {
            guard let presented = claims["nonce"]?.stringValue, ConstantTime.equals(presented, nonce) else { throw .wrongNonce }
        }
        guard let subject = claims["sub"]?.stringValue, !subject.isEmpty else { throw .missingSubject }
        return claims
    }

    private func number(_ name: String) -> Double? {
        switch claims[name] {
        case .int(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }
}
