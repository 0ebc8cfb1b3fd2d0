import Foundation

extension Data {
    /// RFC 4648 §5 base64url without padding.
    public func base64URLEncoded() -> String {
        // Directly from the bytes: Foundation's base64 and three `replacingOccurrences` cost more than minting a
        // token's random bytes.
        let alphabet = Base64URLAlphabet.symbols
        var out: [UInt8] = []
        out.reserveCapacity((count * 4 + 2) / 3)
        var bytes = makeIterator()
        while let first = bytes.next() {
            let second = bytes.next(), third = second == nil ? nil : bytes.next()
            let group = UInt32(first) << 16 | UInt32(second ?? 0) << 8 | UInt32(third ?? 0)
            out.append(alphabet[Int(group >> 18 & 0x3F)])
            out.append(alphabet[Int(group >> 12 & 0x3F)])
            if second != nil { out.append(alphabet[Int(group >> 6 & 0x3F)]) }
            if third != nil { out.append(alphabet[Int(group & 0x3F)]) }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes RFC 4648 §5 base64url, unpadded (as JOSE writes it); nil for anything else (`Base64.decode`).
    public init?(base64URLEncoded text: some StringProtocol) {
        guard let bytes = Base64.decode(Array(text.utf8), url: true) else { return nil }
        self.init(bytes)
    }

    /// Lower-case hex (`Hex.lowercase`).
    public var hexString: String {
        withUnsafeBytes { Hex.lowercase($0) }
    }
}

@usableFromInline
enum Base64URLAlphabet {
    static let symbols = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// The six bits `symbol` stands for; nil for a byte outside the alphabet.
    @inlinable
    static func value(of symbol: UInt8) -> UInt8? {
        switch symbol {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): symbol - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): symbol - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): symbol - UInt8(ascii: "0") + 52
        case UInt8(ascii: "-"): 62
        case UInt8(ascii: "_"): 63
        default: nil
        }
    }
}
