import Crypto
import Foundation

/// RFC 7636 proof key for code exchange, S256 only (`plain` would hand the secret to whoever sees the page).
public enum PKCE {
    /// A challenge or verifier: 43–128 characters of `[A-Z a-z 0-9 - . _ ~]` (RFC 7636 §4.1, §4.2).
    static func isWellFormed(_ value: String) -> Bool {
        (43...128).contains(value.utf8.count)
            && value.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                    UInt8(ascii: "~"):
                    true
                default: false
                }
            }
    }

    /// The challenge a code will be bound to, checked; nil when none was sent and none is `required`
    /// (a public client must send one: anyone can present its client id).
    public static func checkedChallenge(_ challenge: String?, method: String?, required: Bool) throws -> String? {
        guard let challenge, !challenge.isEmpty else {
            if required { throw CaptureError.missingArgument("code_challenge") }
            return nil
        }
        guard method == "S256" else {
            throw CaptureError.invalidArgument("code_challenge_method", "must be S256")
        }
        guard isWellFormed(challenge) else {
            throw CaptureError.invalidArgument("code_challenge", "must be 43-128 characters of A-Z a-z 0-9 - . _ ~")
        }
        return challenge
    }

    /// BASE64URL(SHA256(verifier)) == challenge, compared in constant time.
    public static func verify(_ verifier: String, challenge: String) -> Bool {
        guard isWellFormed(verifier) else { return false }
        let derived = Data(SHA256.hash(data: Data(verifier.utf8))).base64URLEncoded()
        return ConstantTime.equals(derived, challenge)
    }
}
