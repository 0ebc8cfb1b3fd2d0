import Crypto
import Foundation

/// Mints opaque tokens (base64url) and hashes them for storage and lookup.
public struct TokenMinter: Sendable {
    let random: any RandomSource

    public init(random: any RandomSource) {
        self.random = random
    }

    /// 32 CSPRNG bytes as 43 URL-safe characters, never starting with `-`: such a token (1 in 64) reads as an option
    /// when an operator passes it to `capturectl` or another command-line tool. Drawn again rather than altered, so
    /// the tokens stay uniform over the rest (a 0.02-bit loss of 256).
    public func mint() -> String {
        while true {
            let token = Data(random.bytes(32)).base64URLEncoded()
            if !token.hasPrefix("-") { return token }
        }
    }

    /// A token for the tokens table (access, refresh, code, device, sign-out): 33 bytes as 44 URL-safe characters,
    /// the mint time first (milliseconds since 1970, 6 bytes big-endian) and 216 random bits after it. Its stored key
    /// (`key(_:)`) starts with that time, so the keys of new tokens land together at the end of the key index: a
    /// group of refresh rotations writes a few shared index pages instead of two random ones each (docs/adr/
    /// 0010-time-led-token-keys.md). The time says only when the token was issued, which its holder knows anyway. Never
    /// starts with `-`: the first character is `A` until the year 2109.
    public func mintToken(at now: Date) -> String {
        let milliseconds = UInt64(max(0, min((now.timeIntervalSince1970 * 1000).rounded(), Double(TokenKey.maxMilliseconds))))
        return Data(TokenKey.timeBytes(milliseconds) + random.bytes(TokenKey.randomBytes)).base64URLEncoded()
    }

    /// The key a token is stored and looked up by (`TokenRecord.hash`): for a token from `mintToken`, its mint time
    /// in 12 hex digits, then the SHA-256 of the whole token in 64; for any other string (tokens minted before
    /// time-led keys were 43 characters), the SHA-256 alone, as stored then.
    public static func key(_ token: String) -> String {
        guard let time = TokenKey.timePrefix(of: token) else { return hash(token) }
        return time + hash(token)
    }

    /// A fresh random identifier (UUID-shaped, version 4 bits set).
    public func identifier() -> String {
        var bytes = random.bytes(16)
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return Self.uuidText(bytes)
    }

    /// The id of a session's chain begun by a sign-in at `date` (`SessionStart`: the time is read back from it).
    public func chainID(at date: Date) -> String { SessionStart.chainID(at: date, random: random) }

    /// 16 bytes in a UUID's text form: lower-case hex in groups of 8-4-4-4-12.
    static func uuidText(_ bytes: [UInt8]) -> String {
        let hex = Data(bytes).hexString
        let parts = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { range in
            String(
                hex[hex.index(hex.startIndex, offsetBy: range.lowerBound)..<hex.index(hex.startIndex, offsetBy: range.upperBound)]
            )
        }
        return parts.joined(separator: "-")
    }

    /// Lower-case hex SHA-256: what the database stores for a secret (a client's, an admin key's) and for a token,
    /// after the mint time (`key(_:)`).
    public static func hash(_ token: String) -> String {
        var text = token
        return text.withUTF8 { SHA256.hash(data: UnsafeRawBufferPointer($0)) }.withUnsafeBytes { Hex.lowercase($0) }
    }
}

/// The layout of a token from `TokenMinter.mintToken` and of its stored key.
enum TokenKey {
    static let timeByteCount = 6
    static let randomBytes = 27
    /// 44 base64url characters (33 bytes, no padding); 43 was the length of every token before.
    static let length = 44
    static let maxMilliseconds: UInt64 = (1 << 48) - 1
    /// Lower-case hex digits of the mint time in a key.
    static let timeDigits = 2 * timeByteCount

    /// The mint time of a 44-character token in hex, decoded from its first 8 characters; nil for any other string.
    static func timePrefix(of token: String) -> String? {
        let utf8 = token.utf8
        guard utf8.count == length else { return nil }
        var time: UInt64 = 0
        for symbol in utf8.prefix(8) {
            guard let value = Base64URLAlphabet.value(of: symbol) else { return nil }
            time = time << 6 | UInt64(value)
        }
        return Data(timeBytes(time)).hexString
    }

    /// A mint time as the token holds it: 6 bytes, big-endian.
    static func timeBytes(_ milliseconds: UInt64) -> [UInt8] {
        (0..<timeByteCount).reversed().map { UInt8(truncatingIfNeeded: milliseconds >> (8 * UInt64($0))) }
    }
}
