/// Why bytes are not one acceptable CBOR item.
public enum CBORError: Error, Sendable, Equatable {
    /// The input ends inside an item.
    case truncated
    /// Bytes follow the item where none may.
    case trailingBytes
    /// More nesting, items or bytes than the limits allow.
    case tooLarge(String)
    /// Indefinite lengths, reserved additional information, or a break outside an indefinite item.
    case unsupported(String)
    case invalidText
    case duplicateKey
}

/// A bounded decoder of definite-length CBOR. Every length is checked against the bytes that remain before anything
/// is allocated, and nesting, item count and input size are capped, so hostile input costs at most its own size.
public struct CBORDecoder: Sendable {
    public var maxDepth: Int
    public var maxItems: Int
    public var maxBytes: Int

    /// Limits fit for WebAuthn: attestation objects and COSE keys are a few hundred bytes, a few dozen items.
    public init(maxDepth: Int = 16, maxItems: Int = 512, maxBytes: Int = 16 * 1024) {
        self.maxDepth = maxDepth
        self.maxItems = maxItems
        self.maxBytes = maxBytes
    }

    /// Decodes exactly one item that fills `bytes`.
    public func decode(_ bytes: [UInt8]) throws(CBORError) -> CBORValue {
        let (value, used) = try decodePrefix(bytes)
        guard used == bytes.count else { throw .trailingBytes }
        return value
    }

    /// Decodes the item at the start of `bytes` and says how many bytes it took (authenticator data holds a COSE key
    /// followed by more).
    public func decodePrefix(_ bytes: [UInt8]) throws(CBORError) -> (value: CBORValue, count: Int) {
        guard bytes.count <= maxBytes else { throw .tooLarge("input over \(maxBytes) bytes") }
        var reader = Reader(bytes: bytes, limits: self)
        let value = try reader.item(depth: 0)
        return (value, reader.offset)
    }

    private struct Reader {
        let bytes: [UInt8]
        let limits: CBORDecoder
        var offset = 0
        var items = 0

        mutating func byte() throws(CBORError) -> UInt8 {
            guard offset < bytes.count else { throw .truncated }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func take(_ count: UInt64) throws(CBORError) -> ArraySlice<UInt8> {
            guard count <= UInt64(bytes.count - offset) else { throw .truncated }
            let end = offset + Int(count)
            defer { offset = end }
            return bytes[offset..<end]
        }

        mutating func argument(_ info: UInt8) throws(CBORError) -> UInt64 {
            switch info {
            case 0..<24: return UInt64(info)
            case 24...27:
                var value: UInt64 = 0
                for byte in try take(1 << UInt64(info - 24)) { value = value << 8 | UInt64(byte) }
                return value
            case 31: throw .unsupported("indefinite length")
            default: throw .unsupported("reserved additional information \(info)")
            }
        }

        /// A count of items still to read: each needs at least one byte, so a count beyond the input is refused
        /// before an array of that size is reserved.
        mutating func count(_ info: UInt8) throws(CBORError) -> Int {
            let count = try argument(info)
            guard count <= UInt64(bytes.count - offset) else { throw .truncated }
            return Int(count)
        }

        mutating func item(depth: Int) throws(CBORError) -> CBORValue {
            guard depth <= limits.maxDepth else { throw .tooLarge("nesting over \(limits.maxDepth)") }
            items += 1
            guard items <= limits.maxItems else { throw .tooLarge("over \(limits.maxItems) items") }
            let initial = try byte()
            let major = initial >> 5
            let info = initial & 0x1F
            switch major {
            case 0: return .unsigned(try argument(info))
            case 1: return .negative(try argument(info))
            case 2: return .bytes(Array(try take(try argument(info))))
            case 3:
                guard let text = String(validating: try take(try argument(info)), as: UTF8.self) else { throw .invalidText }
                return .text(text)
            case 4:
                let count = try count(info)
                var values: [CBORValue] = []
                values.reserveCapacity(count)
                for _ in 0..<count { values.append(try item(depth: depth + 1)) }
                return .array(values)
            case 5:
                let count = try count(info)
                var entries: [CBORMapEntry] = []
                entries.reserveCapacity(count)
                for _ in 0..<count {
                    let key = try item(depth: depth + 1)
                    guard !entries.contains(where: { $0.key == key }) else { throw .duplicateKey }
                    entries.append(CBORMapEntry(key, try item(depth: depth + 1)))
                }
                return .map(entries)
            case 6:
                let tag = try argument(info)
                return .tagged(tag, try item(depth: depth + 1))
            default:
                return try simple(info)
            }
        }

        mutating func simple(_ info: UInt8) throws(CBORError) -> CBORValue {
            switch info {
            case 20: return .bool(false)
            case 21: return .bool(true)
            case 22: return .null
            case 23: return .undefined
            case 25:
                let bits = try argument(info)
                return .float(Double(Float16Bits(UInt16(bits)).value))
            case 26: return .float(Double(Float(bitPattern: UInt32(try argument(info)))))
            case 27: return .float(Double(bitPattern: try argument(info)))
            case 31: throw .unsupported("break outside an indefinite-length item")
            default: throw .unsupported("simple value \(info)")
            }
        }
    }
}

/// IEEE 754 half precision, decoded by hand (Float16 is not available on every platform Swift builds for).
private struct Float16Bits {
    let bits: UInt16
    init(_ bits: UInt16) { self.bits = bits }

    var value: Float {
        let sign: Float = bits & 0x8000 == 0 ? 1 : -1
        let exponent = Int((bits >> 10) & 0x1F)
        let fraction = Float(bits & 0x3FF)
        switch exponent {
        case 0: return sign * fraction * Float(sign: .plus, exponent: -24, significand: 1)
        case 31: return fraction == 0 ? sign * .infinity : .nan
        default: return sign * (1 + fraction / 1024) * Float(sign: .plus, exponent: exponent - 15, significand: 1)
        }
    }
}
