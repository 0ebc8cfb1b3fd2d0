import CaptureJSON
import Crypto
import CryptoExtras
import Foundation

// SCAFFOLD (lead): replaced by helper K's database-backed SigningKeys at merge. Same API.
public enum JWSAlgorithm: String, Sendable, CaseIterable { case rs256 = "RS256", es256 = "ES256" }

public struct SigningKeys: Sendable {
    let rsa: _RSA.Signing.PrivateKey
    let ec: P256.Signing.PrivateKey

    public init() {
        rsa = try! _RSA.Signing.PrivateKey(keySize: .bits2048)
        ec = P256.Signing.PrivateKey()
    }

    public func sign(_ claims: [String: JSONValue], algorithm: JWSAlgorithm) async throws -> String {
        let header: JSONValue = ["alg": .string(algorithm.rawValue), "kid": .string(algorithm.rawValue), "typ": "JWT"]
        let input = header.encoded().base64URLEncoded() + "." + JSONValue.object(claims).encoded().base64URLEncoded()
        let signature: Data
        switch algorithm {
        case .rs256: signature = try rsa.signature(for: Data(input.utf8), padding: .insecurePKCS1v1_5).rawRepresentation
        case .es256: signature = try ec.signature(for: Data(input.utf8)).rawRepresentation
        }
        return input + "." + signature.base64URLEncoded()
    }

    public func published() async throws -> JSONWebKeySet {
        JSONWebKeySet(entries: [
            .init(keyID: "RS256", key: .rsa(rsa.publicKey)), .init(keyID: "ES256", key: .p256(ec.publicKey)),
        ])
    }

    public func document() async throws -> JSONValue {
        let p = ec.publicKey.rawRepresentation
        return [
            "keys": [
                [
                    "kty": "RSA", "kid": "RS256", "use": "sig", "alg": "RS256",
                    "n": .string((try rsa.publicKey.getKeyPrimitives()).modulus.base64URLEncoded()),
                    "e": .string((try rsa.publicKey.getKeyPrimitives()).publicExponent.base64URLEncoded()),
                ],
                [
                    "kty": "EC", "kid": "ES256", "use": "sig", "alg": "ES256", "crv": "P-256",
                    "x": .string(p.prefix(32).base64URLEncoded()), "y": .string(p.suffix(32).base64URLEncoded()),
                ],
            ]
        ]
    }
}
