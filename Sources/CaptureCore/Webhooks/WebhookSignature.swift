import Crypto
import Foundation

/// Standard Webhooks' signatures: over `<webhook-id>.<webhook-timestamp>.<body>`, `v1,<base64 HMAC-SHA256>` with the
/// bytes a `whsec_<base64>` secret holds, or `v1a,<base64 Ed25519 signature>` with a `whsk_<base64>` private key
/// whose public key (`whpk_<base64>`) the receiver holds. Several, space-separated, while a secret is rotated.
public enum WebhookSignature {
    /// A new secret for `signing`: 24 random bytes for `v1` (as Standard Webhooks' libraries make them), an Ed25519
    /// private key for `v1a`.
    public static func newSecret(_ signing: WebhookSigning, random: any RandomSource) -> String {
        switch signing {
        case .v1: return "whsec_" + Data(random.bytes(24)).base64EncodedString()
        case .v1a:
            let key = try! Curve25519.Signing.PrivateKey(rawRepresentation: random.bytes(32))  // 32 bytes: never throws
            return "whsk_" + key.rawRepresentation.base64EncodedString()
        }
    }

    /// What a receiver verifies with: the secret itself for `v1`, the public key (`whpk_`) for `v1a`.
    public static func verificationKey(of secret: String) -> String? {
        guard secret.hasPrefix("whsk_") else { return secret }
        guard let raw = Data(base64Encoded: String(secret.dropFirst(5))),
            let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: raw)
        else { return nil }
        return "whpk_" + key.publicKey.rawRepresentation.base64EncodedString()
    }

    /// The `webhook-signature` header: one signature per secret, space-separated; a secret that cannot be read signs
    /// nothing.
    public static func header(id: String, timestamp: Int64, body: String, secrets: [String]) -> String {
        let content = Data("\(id).\(timestamp).\(body)".utf8)
        return secrets.compactMap { signature(of: content, with: $0) }.joined(separator: " ")
    }

    static func signature(of content: Data, with secret: String) -> String? {
        if secret.hasPrefix("whsk_") {
            guard let raw = Data(base64Encoded: String(secret.dropFirst(5))),
                let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: raw),
                let signature = try? key.signature(for: content)
            else { return nil }
            return "v1a," + signature.base64EncodedString()
        }
        let encoded = secret.hasPrefix("whsec_") ? String(secret.dropFirst(6)) : secret
        guard let bytes = Data(base64Encoded: encoded), !bytes.isEmpty else { return nil }
        let mac = HMAC<SHA256>.authenticationCode(for: content, using: SymmetricKey(data: bytes))
        return "v1," + Data(mac).base64EncodedString()
    }
}
