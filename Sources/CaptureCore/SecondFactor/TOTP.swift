import Crypto
import Foundation

/// Authenticator-app codes (RFC 6238 over RFC 4226): HMAC-SHA-1, 6 digits, 30-second steps, the step before and
/// after accepted for clock drift. A code is used once: the step it matched is kept and no step up to it matches
/// again.
public struct TOTP: Sendable {
    public static let digits = 6
    public static let period: TimeInterval = 30
    /// Steps either side of now that still match.
    public static let drift: Int64 = 1
    /// 160 bits, as RFC 4226 recommends.
    public static let secretBytes = 20

    public let secret: [UInt8]

    public init(secret: [UInt8]) {
        self.secret = secret
    }

    public static func step(at date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 / period).rounded(.down))
    }

    /// The code of one step (RFC 4226 §5.3's dynamic truncation).
    public func code(step: Int64) -> String {
        let counter = withUnsafeBytes(of: UInt64(bitPattern: step).bigEndian) { Array($0) }
        let mac = Array(HMAC<Insecure.SHA1>.authenticationCode(for: counter, using: SymmetricKey(data: secret)))
        let offset = Int(mac[mac.count - 1] & 0x0F)
        let value =
            (UInt32(mac[offset] & 0x7F) << 24 | UInt32(mac[offset + 1]) << 16 | UInt32(mac[offset + 2]) << 8
                | UInt32(mac[offset + 3])) % 1_000_000
        let text = String(value)
        return String(repeating: "0", count: Self.digits - text.count) + text
    }

    /// The step `code` matches at `date`, when it matches one within the drift that is later than `after` (the last
    /// step used), else nil. Every candidate is compared in full, whatever matched before.
    public func matchingStep(_ code: String, at date: Date, after used: Int64?) -> Int64? {
        let typed = code.filter { !$0.isWhitespace }
        guard typed.count == Self.digits, typed.allSatisfy(\.isASCII), typed.allSatisfy(\.isNumber) else { return nil }
        let now = Self.step(at: date)
        var found: Int64?
        for step in (now - Self.drift)...(now + Self.drift) where ConstantTime.equals(self.code(step: step), typed) {
            if step > (used ?? Int64.min) && found == nil { found = step }
        }
        return found
    }

    /// The `otpauth://` link an authenticator app opens (Google Authenticator's key URI format).
    public func provisioningURI(issuer: String, account: String) -> String {
        let label = Self.escape(issuer) + ":" + Self.escape(account)
        return "otpauth://totp/\(label)?secret=\(Base32.encode(secret))&issuer=\(Self.escape(issuer))"
            + "&algorithm=SHA1&digits=\(Self.digits)&period=\(Int(Self.period))"
    }

    static func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~@"))) ?? ""
    }
}

/// RFC 4648 base32 without padding, as authenticator apps take secrets.
public enum Base32 {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    public static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            buffer = buffer << 8 | UInt32(byte)
            bits += 8
            while bits >= 5 {
                out.append(alphabet[Int(buffer >> UInt32(bits - 5) & 0x1F)])
                bits -= 5
            }
        }
        if bits > 0 { out.append(alphabet[Int(buffer << UInt32(5 - bits) & 0x1F)]) }
        return String(decoding: out, as: UTF8.self)
    }

    /// Groups of four for a person to type.
    public static func grouped(_ text: String) -> String {
        stride(from: 0, to: text.count, by: 4).map { start in
            let from = text.index(text.startIndex, offsetBy: start)
            return String(text[from..<(text.index(from, offsetBy: 4, limitedBy: text.endIndex) ?? text.endIndex)])
        }.joined(separator: " ")
    }
}
