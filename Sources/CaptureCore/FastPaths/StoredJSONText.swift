import CaptureJSON

/// A stored profile's text read where it lies, for `/entity`: where each member's name and value are, without
/// building the values. Only text exactly as `JSONWriter` writes it is read: no spaces; member names in ASCII,
/// unescaped and in ascending order; strings escaped as it escapes them; integers only, of at most 18 digits and
/// never `-0`. A value's bytes are then the bytes that parsing it and writing it again would give. Anything else
/// (text written by other software, a fraction, a name with an escape, limits beyond `StoredJSON.limits`') is
/// refused, and the caller parses the text instead.
struct StoredJSONText {
    /// One member of an object: the byte ranges of its name (inside the quotes) and of its value.
    struct Member {
        let name: Range<Int>
        let value: Range<Int>
    }

    let bytes: UnsafeBufferPointer<UInt8>
    private var position = 0
    private var values = 0

    /// Deeper than this is refused (the stored limit is 32; profiles are a few levels deep).
    static let maxDepth = 16

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// The members of the object that is the whole text; nil when the text is not one as `JSONWriter` writes it.
    mutating func wholeObject() -> [Member]? {
        guard bytes.count <= StoredJSON.limits.maxInputBytes, byte(at: 0) == UInt8(ascii: "{") else { return nil }
        position = 0
        guard let members = object(depth: 1), position == bytes.count else { return nil }
        return members
    }

    /// The members of the object whose value starts at `start` (already read whole by `wholeObject`), or nil when
    /// that value is not an object.
    func members(ofObjectAt start: Int) -> [Member]? {
        guard byte(at: start) == UInt8(ascii: "{") else { return nil }
        var again = StoredJSONText(bytes)
        again.position = start
        return again.object(depth: 1)
    }

    /// The ranges of the elements of the array whose value starts at `start`, or nil when that value is not one.
    func elements(ofArrayAt start: Int) -> [Range<Int>]? {
        guard byte(at: start) == UInt8(ascii: "[") else { return nil }
        var again = StoredJSONText(bytes)
        again.position = start + 1
        var elements: [Range<Int>] = []
        if again.byte(at: again.position) == UInt8(ascii: "]") { return elements }
        while true {
            let elementStart = again.position
            guard again.skipValue(depth: 1) else { return nil }
            elements.append(elementStart..<again.position)
            guard again.consume(UInt8(ascii: ",")) else { break }
        }
        return again.consume(UInt8(ascii: "]")) ? elements : nil
    }

    /// The integer at `range`, when it is one.
    func integer(at range: Range<Int>) -> Int64? {
        guard let first = byte(at: range.lowerBound), first == UInt8(ascii: "-") || (0x30...0x39).contains(first) else {
            return nil
        }
        return Int64(String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self))
    }

    /// Whether the name at `range` is `name`.
    func name(at range: Range<Int>, is name: String) -> Bool {
        name.utf8.count == range.count && name.utf8.elementsEqual(bytes[range])
    }

    /// Whether the name at `range` is the one in `key`, a member's `"name":` as `JSONWriter` writes it (names here
    /// have no escapes, so the bytes between the quotes are the name's).
    func name(at range: Range<Int>, isKey key: [UInt8]) -> Bool {
        key.count == range.count + 3 && UnsafeBufferPointer(rebasing: bytes[range]).elementsEqual(key[1...range.count])
    }

    // MARK: Reading

    private func byte(at index: Int) -> UInt8? {
        index < bytes.count ? bytes[index] : nil
    }

    private mutating func consume(_ expected: UInt8) -> Bool {
        guard byte(at: position) == expected else { return false }
        position += 1
        return true
    }

    /// An object at `position` (its `{`), read past its `}`.
    private mutating func object(depth: Int) -> [Member]? {
        guard depth <= Self.maxDepth, consume(UInt8(ascii: "{")) else { return nil }
        var members: [Member] = []
        if consume(UInt8(ascii: "}")) { return members }
        while true {
            guard let name = name(), consume(UInt8(ascii: ":")) else { return nil }
            if let previous = members.last, !bytes[previous.name].lexicographicallyPrecedes(bytes[name]) { return nil }
            let valueStart = position
            guard skipValue(depth: depth) else { return nil }
            members.append(Member(name: name, value: valueStart..<position))
            guard consume(UInt8(ascii: ",")) else { break }
        }
        return consume(UInt8(ascii: "}")) ? members : nil
    }

    /// A member name: printable ASCII without escapes (what the schema's names are), quotes excluded.
    private mutating func name() -> Range<Int>? {
        guard consume(UInt8(ascii: "\"")) else { return nil }
        let start = position
        while let byte = byte(at: position), byte != UInt8(ascii: "\"") {
            guard (0x20..<0x7F).contains(byte), byte != UInt8(ascii: "\\") else { return nil }
            position += 1
        }
        let end = position
        return consume(UInt8(ascii: "\"")) ? start..<end : nil
    }

    private mutating func skipValue(depth: Int) -> Bool {
        values += 1
        guard values <= StoredJSON.limits.maxValues, let first = byte(at: position) else { return false }
        switch first {
        case UInt8(ascii: "{"): return object(depth: depth + 1) != nil
        case UInt8(ascii: "["): return array(depth: depth + 1)
        case UInt8(ascii: "\""): return string()
        case UInt8(ascii: "t"): return literal("true")
        case UInt8(ascii: "f"): return literal("false")
        case UInt8(ascii: "n"): return literal("null")
        default: return integer()
        }
    }

    private mutating func array(depth: Int) -> Bool {
        guard depth <= Self.maxDepth, consume(UInt8(ascii: "[")) else { return false }
        if consume(UInt8(ascii: "]")) { return true }
        while true {
            guard skipValue(depth: depth) else { return false }
            guard consume(UInt8(ascii: ",")) else { break }
        }
        return consume(UInt8(ascii: "]"))
    }

    private mutating func literal(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard position + count <= bytes.count else { return false }
        let matches = UnsafeBufferPointer(start: word.utf8Start, count: count).elementsEqual(bytes[position..<position + count])
        position += count
        return matches
    }

    /// `-?(0|[1-9][0-9]*)`, 18 digits at most, not `-0`, and no fraction or exponent after it.
    private mutating func integer() -> Bool {
        let negative = consume(UInt8(ascii: "-"))
        let start = position
        while let byte = byte(at: position), (0x30...0x39).contains(byte) { position += 1 }
        let digits = position - start
        guard digits > 0, digits <= 18, bytes[start] != 0x30 || (digits == 1 && !negative) else { return false }
        if let next = byte(at: position), next == UInt8(ascii: ".") || next == UInt8(ascii: "e") || next == UInt8(ascii: "E") {
            return false
        }
        return true
    }

    /// A string as `JSONWriter.writeString` writes one: bytes below 0x20 only as `\n`, `\r`, `\t` or `\u00xx`;
    /// `"` and `\` escaped; nothing else escaped.
    private mutating func string() -> Bool {
        guard consume(UInt8(ascii: "\"")) else { return false }
        while let byte = byte(at: position) {
            position += 1
            switch byte {
            case UInt8(ascii: "\""):
                return true
            case UInt8(ascii: "\\"):
                guard let escaped = self.byte(at: position) else { return false }
                position += 1
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    continue
                case UInt8(ascii: "u"):
                    guard position + 4 <= bytes.count, bytes[position] == 0x30, bytes[position + 1] == 0x30,
                        let high = Self.lowerHex(bytes[position + 2]), let low = Self.lowerHex(bytes[position + 3]),
                        high < 2, ![0x09, 0x0A, 0x0D].contains(high << 4 | low)
                    else { return false }
                    position += 4
                default:
                    return false
                }
            case 0..<0x20:
                return false
            default:
                continue
            }
        }
        return false
    }

    private static func lowerHex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: return byte - 0x30
        case 0x61...0x66: return byte - 0x61 + 10
        default: return nil
        }
    }
}
