import CaptureCBOR
import Crypto
import CryptoExtras
import Foundation

/// A credential's public key as COSE encodes it (RFC 9053), for the algorithms passkeys use: ES256 (P-256), RS256
/// (RSA PKCS #1 v1.5 with SHA-256, 2048 bits or more) and EdDSA (Ed25519).
public struct COSEKey: Sendable {
    public enum Algorithm: Int64, Sendable, CaseIterable {
        case es256 = -7
        case eddsa = -8
        case rs256 = -257
    }

    enum Key: Sendable {
        case p256(P256.Signing.PublicKey)
        case ed25519(Curve25519.Signing.PublicKey)
        case rsa(_RSA.Signing.PublicKey)
    }

    public let algorithm: Algorithm
    let key: Key

    /// Reads the key's map; refuses other key types, curves and algorithms, and parameters of the wrong size.
    public init(_ value: CBORValue) throws(PasskeyFailure) {
        guard value.entries != nil else { throw .malformed("the public key is not a COSE map") }
        guard let number = value[3]?.int else { throw .malformed("the public key names no algorithm") }
        guard let algorithm = Algorithm(rawValue: number) else { throw .unsupportedAlgorithm(number) }
        self.algorithm = algorithm
        let keyType = value[1]?.int
        switch algorithm {
        case .es256:
            guard keyType == 2, value[-1]?.int == 1, let x = value[-2]?.bytes, let y = value[-3]?.bytes,
                x.count == 32, y.count == 32,
                let key = try? P256.Signing.PublicKey(x963Representation: [0x04] + x + y)
            else { throw .malformed("not a P-256 key") }
            self.key = .p256(key)
        case .eddsa:
            guard keyType == 1, value[-1]?.int == 6, let x = value[-2]?.bytes, x.count == 32,
                let key = try? Curve25519.Signing.PublicKey(rawRepresentation: x)
            else { throw .malformed("not an Ed25519 key") }
            self.key = .ed25519(key)
        case .rs256:
            guard keyType == 3, let n = value[-1]?.bytes, let e = value[-2]?.bytes, n.count >= 256, n.count <= 512,
                !e.isEmpty, e.count <= 8,
                let key = try? _RSA.Signing.PublicKey(n: n, e: e)
            else { throw .malformed("not an RSA key of 2048 to 4096 bits") }
            self.key = .rsa(key)
        }
    }

    /// Whether `signature` (DER for ECDSA, raw for EdDSA and RSA, as WebAuthn sends them) signs `data`.
    public func isValidSignature(_ signature: [UInt8], for data: [UInt8]) -> Bool {
        switch key {
        case .p256(let key):
            guard let ecdsa = try? P256.Signing.ECDSASignature(derRepresentation: signature) else { return false }
            return key.isValidSignature(ecdsa, for: data)
        case .ed25519(let key):
            return key.isValidSignature(signature, for: data)
        case .rsa(let key):
            return key.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: signature), for: SHA256.hash(data: data),
                padding: .insecurePKCS1v1_5)
        }
    }
}
