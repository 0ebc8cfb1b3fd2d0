import Crypto
import Foundation

/// Mints opaque tokens (256 bits, base64url) and hashes them for storage and lookup.
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

    /// A fresh random identifier (UUID-shaped, version 4 bits set).
    public func identifier() -> String {
        var bytes = random.bytes(16)
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hex = Data(bytes).hexString
        let parts = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { range in
            String(hex[hex.index(hex.startIndex, offsetBy: range.lowerBound)..<hex.index(hex.startIndex, offsetBy: range.upperBound)])
        }
        return parts.joined(separator: "-")
    }

    /// Lower-case hex SHA-256: what the database stores and looks up by.
    public static func hash(_ token: String) -> String {
        Data(SHA256.hash(data: Data(token.utf8))).hexString
    }
}
