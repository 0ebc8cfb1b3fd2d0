import CaptureJSON
import Crypto
import CryptoExtras
import Foundation

/// A provider's signing keys (RFC 7517), as its `jwks_uri` serves them. Keys this service cannot use (other
/// types, encryption keys, RSA under 2048 bits) are skipped, not fatal: providers publish several.
public struct JSONWebKeySet: Sendable {
    public enum Key: Sendable {
        case rsa(_RSA.Signing.PublicKey)
        case p256(P256.Signing.PublicKey)

        var algorithm: String {
            switch self {
            case .rsa: "RS256"
            case .p256: "ES256"
            }
        }
    }

    public struct Entry: Sendable {
        public var keyID: String?
        public var key: Key
    }

    public var entries: [Entry]

    public init(entries: [Entry]) { self.entries = entries }

    /// Parses `{"keys": [...]}`; returns nil when the document is not a key set at all.
    public init?(json: JSONValue) {
        guard case .object(let document) = json, case .array(let keys) = document["keys"] else { return nil }
        entries = keys.compactMap(Self.entry)
    }

    static func entry(_ value: JSONValue) -> Entry? {
        guard case .object(let members) = value else { return nil }
        func text(_ name: String) -> String? { members[name]?.stringValue }
        if let use = text("use"), use != "sig" { return nil }
        let keyID = text("kid")
        switch text("kty") {
        case "RSA":
            guard text("alg") == nil || text("alg") == "RS256", let n = text("n").flatMap { Data(base64URLEncoded: $0) },
                let e = text("e").flatMap { Data(base64URLEncoded: $0) }, let key = try? _RSA.Signing.PublicKey(n: n, e: e)
            else { return nil }
            return Entry(keyID: keyID, key: .rsa(key))
        case "EC":
            guard text("crv") == "P-256", text("alg") == nil || text("alg") == "ES256",
                let x = text("x").flatMap { Data(base64URLEncoded: $0) },
                let y = text("y").flatMap { Data(base64URLEncoded: $0) },
                x.count == 32, y.count == 32, let key = try? P256.Signing.PublicKey(rawRepresentation: x + y)
            else { return nil }
            return Entry(keyID: keyID, key: .p256(key))
        default:
            return nil
        }
    }

    /// The keys that may have signed a token with this header: by `kid` when it names one, else every key of the
    /// token's algorithm.
    func candidates(keyID: String?, algorithm: String) -> [Key] {
        entries.filter { entry in
            entry.key.algorithm == algorithm && (keyID == nil || entry.keyID == nil || entry.keyID == keyID)
        }.map(\.key)
    }

    public func containsKey(id: String) -> Bool { entries.contains { $0.keyID == id } }
}
