import CaptureJSON
import Crypto
import CryptoExtras
import Foundation

/// A signing key's private half in memory: made here, sealed for storage, opened again, and its public half as a JWK.
enum PrivateSigningKey: Sendable {
    case rsa(_RSA.Signing.PrivateKey)
    case p256(P256.Signing.PrivateKey)

    /// A new key: RSA 2048 (RS256) or P-256 (ES256), from the system's generator.
    init(new algorithm: JWSAlgorithm) throws {
        switch algorithm {
        case .rs256: self = .rsa(try _RSA.Signing.PrivateKey(keySize: .bits2048))
        case .es256: self = .p256(P256.Signing.PrivateKey())
        }
    }

    /// The key a stored row holds; nil when it was not sealed under `codeKey` (another deployment's key) or does not
    /// hold a key of its algorithm.
    init?(_ stored: SigningKey, codeKey: CodeKey) {
        guard let bytes = codeKey.unseal(stored.sealedKey) else { return nil }
        switch stored.algorithm {
        case .rs256:
            guard let key = try? _RSA.Signing.PrivateKey(derRepresentation: bytes), key.keySizeInBits >= 2048 else {
                return nil
            }
            self = .rsa(key)
        case .es256:
            guard let key = try? P256.Signing.PrivateKey(rawRepresentation: bytes) else { return nil }
            self = .p256(key)
        }
    }

    var algorithm: JWSAlgorithm {
        switch self {
        case .rsa: .rs256
        case .p256: .es256
        }
    }

    /// The private key's bytes as `SigningKey.sealedKey` seals them.
    var privateBytes: [UInt8] {
        switch self {
        case .rsa(let key): Array(key.derRepresentation)
        case .p256(let key): Array(key.rawRepresentation)
        }
    }

    /// The public key's RFC 7517 members that RFC 7638 hashes: `kty` and `n`, `e` or `crv`, `x`, `y`.
    var publicMembers: [String: JSONValue] {
        switch self {
        case .rsa(let key):
            // Primitives of a key this process made or opened: BoringSSL gives them for every RSA key.
            let primitives = try! key.publicKey.getKeyPrimitives()
            return [
                "kty": "RSA", "n": .string(Self.unsigned(primitives.modulus).base64URLEncoded()),
                "e": .string(Self.unsigned(primitives.publicExponent).base64URLEncoded()),
            ]
        case .p256(let key):
            let point = key.publicKey.rawRepresentation  // x || y, 32 bytes each
            return [
                "kty": "EC", "crv": "P-256", "x": .string(point.prefix(32).base64URLEncoded()),
                "y": .string(point.suffix(32).base64URLEncoded()),
            ]
        }
    }

    /// RFC 7638: base64url of the SHA-256 of the required members, sorted, without white space (`JSONWriter`'s form).
    var thumbprint: String {
        Data(SHA256.hash(data: JSONValue.object(publicMembers).encodedBytes())).base64URLEncoded()
    }

    /// The JWK a key set publishes: the required members, `kid`, `use` and `alg`, and never a private member.
    func publicJWK(kid: String) -> JSONValue {
        var members = publicMembers
        members["kid"] = .string(kid)
        members["use"] = "sig"
        members["alg"] = .string(algorithm.rawValue)
        return .object(members)
    }

    /// The public half as `IDToken` verifies with it.
    var publicKey: JSONWebKeySet.Key {
        switch self {
        case .rsa(let key): .rsa(key.publicKey)
        case .p256(let key): .p256(key.publicKey)
        }
    }

    /// RS256: RSASSA-PKCS1-v1_5 over SHA-256; ES256: ECDSA P-256 over SHA-256 as JWS writes it, r || s (RFC 7518 §3.4).
    func signature(of input: [UInt8]) throws -> Data {
        let digest = SHA256.hash(data: input)
        switch self {
        case .rsa(let key): return try key.signature(for: digest, padding: .insecurePKCS1v1_5).rawRepresentation
        case .p256(let key): return try key.signature(for: digest).rawRepresentation
        }
    }

    /// A big-endian integer without leading zero bytes (RFC 7518 §6.3.1, §2 "Base64urlUInt").
    static func unsigned(_ bytes: Data) -> Data {
        let trimmed = bytes.drop { $0 == 0 }
        return trimmed.isEmpty ? Data([0]) : Data(trimmed)
    }
}
