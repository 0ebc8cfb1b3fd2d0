/// The text encodings legacy hashes come in: hex digests, base64 with or without padding, and passlib's "adapted"
/// base64 (`.` for `+`). Stored legacy hashes keep salts and digests as lower-case hex.
enum LegacyEncoding {
    /// Hex in either case, an even number of digits; nil for anything else.
    static func hex(_ text: some StringProtocol) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = value(ofHexDigit: digits[index]), let low = value(ofHexDigit: digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.withUnsafeBytes { Hex.lowercase($0) }
    }

    /// RFC 4648 §4 base64, padded or not; `.` is read as `+` (passlib's adapted base64, which never uses `+`).
    static func base64(_ text: some StringProtocol) -> [UInt8]? {
        var symbols = Array(text.utf8).map { $0 == UInt8(ascii: ".") ? UInt8(ascii: "+") : $0 }
        guard !symbols.contains(UInt8(ascii: "=")) || symbols.count % 4 == 0 else { return nil }
        while symbols.count % 4 != 0 { symbols.append(UInt8(ascii: "=")) }
        return Base64.decode(symbols)
    }

    /// A digest written as hex (only hex digits) or else as base64: what Janrain-era exports use for `value`.
    static func digest(_ text: some StringProtocol) -> [UInt8]? {
        hex(text) ?? base64(text)
    }

    private static func value(ofHexDigit digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// Why a legacy hash was refused: not the shape its format has, or a cost that would let one sign-in attempt occupy
/// the service (`LegacyHashCosts`).
enum LegacyHashError: Error, Equatable {
    case malformed(String)
    case tooCostly(String)
}
