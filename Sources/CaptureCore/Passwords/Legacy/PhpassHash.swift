import Crypto

/// phpass's portable hashes (WordPress `$P$`, phpBB3 `$H$`): MD5 of the salt and password, then 2^count times MD5 of
/// the previous digest and the password, written in phpass's own base64; and Drupal 7's `$S$`, the same with SHA-512,
/// the string cut at 55 characters (Janrain's `password-phpass-sha512-truncated-55`). Janrain names them
/// `password-phpass-…`. Stored as the hash string.
struct PhpassHash: Sendable, Equatable {
    static let alphabet = Array("./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)

    var text: String
    var log2Count: Int
    var salt: [UInt8]

    init(text: String) throws(LegacyHashError) {
        let bytes = Array(text.utf8)
        let length = text.hasPrefix("$S$") ? 55 : 34
        guard bytes.count == length, text.hasPrefix("$P$") || text.hasPrefix("$H$") || text.hasPrefix("$S$"),
            bytes[3...].allSatisfy { Self.alphabet.contains($0) }, let count = Self.alphabet.firstIndex(of: bytes[3])
        else {
            throw .malformed(
                "a phpass hash is $P$ or $H$ and 31 characters of ./0-9A-Za-z, or Drupal's $S$ and 52 of them")
        }
        guard (7...30).contains(count) else { throw .malformed("a phpass count is 7 to 30") }
        guard count <= LegacyHashCosts.phpassLog2 else {
            throw .tooCostly("phpass with 2^\(count) rounds; at most 2^\(LegacyHashCosts.phpassLog2)")
        }
        self.text = text
        self.log2Count = count
        salt = Array(bytes[4..<12])
    }

    var stored: String { text }

    func matches(_ password: [UInt8]) -> Bool {
        let expected = Array(text.utf8)
        if text.hasPrefix("$S$") {
            var digest = Array(SHA512.hash(data: salt + password))
            for _ in 0..<(1 << log2Count) {
                digest = Array(SHA512.hash(data: digest + password))
            }
            return ConstantTime.equal(Array((Array(expected.prefix(12)) + Self.encode(digest)).prefix(55)), expected)
        }
        var digest = Array(Insecure.MD5.hash(data: salt + password))
        for _ in 0..<(1 << log2Count) {
            digest = Array(Insecure.MD5.hash(data: digest + password))
        }
        return ConstantTime.equal(Array(expected.prefix(12)) + Self.encode(digest), expected)
    }

    /// phpass's encode64: little-endian groups of three bytes, six bits at a time from the low end.
    static func encode(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var index = 0
        while index < bytes.count {
            var value = Int(bytes[index])
            index += 1
            out.append(alphabet[value & 0x3F])
            if index < bytes.count { value |= Int(bytes[index]) << 8 }
            out.append(alphabet[(value >> 6) & 0x3F])
            if index >= bytes.count { break }
            index += 1
            if index < bytes.count { value |= Int(bytes[index]) << 16 }
            out.append(alphabet[(value >> 12) & 0x3F])
            if index >= bytes.count { break }
            index += 1
            out.append(alphabet[(value >> 18) & 0x3F])
        }
        return out
    }
}
