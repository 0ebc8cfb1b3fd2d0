import Foundation

extension Data {
    /// RFC 4648 §5 base64url without padding.
    public func base64URLEncoded() -> String {
        base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Decodes RFC 4648 §5 base64url, unpadded (as JOSE writes it); nil for anything else.
    public init?(base64URLEncoded text: some StringProtocol) {
        guard text.utf8.allSatisfy({ $0 != UInt8(ascii: "=") && $0 != UInt8(ascii: "+") && $0 != UInt8(ascii: "/") }) else {
            return nil
        }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        self.init(base64Encoded: base64)
    }

    /// Lower-case hex, built from a table (String(format:) per byte is slow on Linux and this runs per request).
    public var hexString: String {
        let digits = Array("0123456789abcdef".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count * 2)
        for byte in self {
            bytes.append(digits[Int(byte >> 4)])
            bytes.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
