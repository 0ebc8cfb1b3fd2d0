/// RFC 4648 base64 decoded from bytes, without Foundation's string bridging (HTTP Basic on every introspection).
/// Inlinable, so that callers in other modules get it specialized for their collection: generic, it walked the bytes
/// through witness tables and cost more than Foundation had.
public enum Base64 {
    /// §4 base64 with its padding (`url` false: what HTTP Basic sends), or §5 base64url without padding (`url`: what
    /// JOSE writes); nil for anything else: a symbol of the other alphabet, padding where it may not be, a length no
    /// encoding has.
    @inlinable
    public static func decode(_ text: some BidirectionalCollection<UInt8>, url: Bool = false) -> [UInt8]? {
        var symbols = text[...]
        if url {
            guard symbols.count % 4 != 1 else { return nil }
        } else {
            guard symbols.count % 4 == 0 else { return nil }
            for _ in 0..<2 where symbols.last == UInt8(ascii: "=") { symbols = symbols.dropLast() }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(symbols.count * 3 / 4)
        var bits: UInt32 = 0, count = 0
        for symbol in symbols {
            guard let value = url ? Base64URLAlphabet.value(of: symbol) : standardValue(of: symbol) else { return nil }
            bits = bits << 6 | UInt32(value)
            count += 6
            if count >= 8 {
                count -= 8
                bytes.append(UInt8(truncatingIfNeeded: bits >> UInt32(count)))
            }
        }
        return bytes
    }

    /// The six bits `symbol` stands for in §4's alphabet; nil for any other byte (`=` included).
    @inlinable
    static func standardValue(of symbol: UInt8) -> UInt8? {
        switch symbol {
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        case UInt8(ascii: "-"), UInt8(ascii: "_"): nil
        default: Base64URLAlphabet.value(of: symbol)
        }
    }
}
