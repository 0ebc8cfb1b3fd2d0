/// Parses untrusted JSON text (RFC 8259, strictly) into a `JSONValue` in one pass over its UTF-8 bytes, with
/// limits on size, nesting, value count, string and number length, so the work a caller can ask for is linear in
/// a bounded input. Request parameters go through here; Foundation's decoder is kept for trusted settings files.
public enum JSONParser {
    /// How much a document may ask of the parser. Every limit is checked before the work it guards is done.
    public struct Limits: Sendable, Equatable {
        /// Size of the whole document in UTF-8 bytes.
        public var maxInputBytes: Int
        /// Containers inside containers; the document's own top-level array or object is level 1.
        public var maxDepth: Int
        /// Values in the document: every array element, every object member, and the top-level value.
        public var maxValues: Int
        /// Decoded UTF-8 bytes of one string (object keys included).
        public var maxStringBytes: Int
        /// Characters of one number literal (RFC 8259 §9 lets a parser bound range and precision).
        public var maxNumberBytes: Int

        public init(maxInputBytes: Int, maxDepth: Int, maxValues: Int, maxStringBytes: Int, maxNumberBytes: Int) {
            self.maxInputBytes = maxInputBytes
            self.maxDepth = maxDepth
            self.maxValues = maxValues
            self.maxStringBytes = maxStringBytes
            self.maxNumberBytes = maxNumberBytes
        }

        /// Generous for a profile update (a handful of short attributes), small enough that a document costs
        /// well under a millisecond to refuse or accept.
        public static let standard = Limits(
            maxInputBytes: 65_536, maxDepth: 32, maxValues: 10_000, maxStringBytes: 4_096, maxNumberBytes: 64)

        /// For JSON this process wrote itself (an admin view's `JSONEncoder` output): its size is the data's, never a
        /// caller's choice, so only the depth is bounded.
        public static let ownOutput = Limits(
            maxInputBytes: .max, maxDepth: 32, maxValues: .max, maxStringBytes: .max, maxNumberBytes: 64)
    }

    public static func parse(_ text: String, limits: Limits = .standard) throws(JSONParseError) -> JSONValue {
        try parse(text.utf8, limits: limits)
    }

    public static func parse(_ bytes: some Collection<UInt8>, limits: Limits = .standard) throws(JSONParseError) -> JSONValue {
        // Checked before the bytes are even copied.
        guard bytes.count <= limits.maxInputBytes else {
            throw .limitExceeded(.inputBytes(limits.maxInputBytes), offset: limits.maxInputBytes)
        }
        var reader = JSONReader(bytes: Array(bytes), limits: limits)
        return try reader.document()
    }
}

/// Why a document was refused, and the byte offset (from 0) where the parser noticed.
public enum JSONParseError: Error, Equatable, Sendable {
    /// Not RFC 8259 JSON.
    case invalid(String, offset: Int)
    /// Well-formed so far, but beyond one of `JSONParser.Limits`.
    case limitExceeded(JSONLimit, offset: Int)

    public var offset: Int {
        switch self {
        case .invalid(_, let offset), .limitExceeded(_, let offset): offset
        }
    }

    /// One sentence for the developer reading the reply, e.g. "leading zeros are not allowed at byte 5".
    public var message: String {
        switch self {
        case .invalid(let reason, let offset): "\(reason) at byte \(offset)"
        case .limitExceeded(let limit, let offset): "\(limit.description) at byte \(offset)"
        }
    }
}

/// The limit a document went past, with its value.
public enum JSONLimit: Equatable, Sendable, CustomStringConvertible {
    case inputBytes(Int)
    case depth(Int)
    case values(Int)
    case stringBytes(Int)
    case numberBytes(Int)

    public var description: String {
        switch self {
        case .inputBytes(let limit): "the document is longer than \(limit) bytes"
        case .depth(let limit): "arrays and objects are nested more than \(limit) levels deep"
        case .values(let limit): "the document holds more than \(limit) values"
        case .stringBytes(let limit): "a string is longer than \(limit) bytes"
        case .numberBytes(let limit): "a number is longer than \(limit) characters"
        }
    }
}

/// The recursive-descent reader. Recursion is bounded by `maxDepth`, so the stack stays small.
private struct JSONReader {
    let bytes: [UInt8]
    let limits: JSONParser.Limits
    var index = 0
    var values = 0

    init(bytes: [UInt8], limits: JSONParser.Limits) {
        self.bytes = bytes
        self.limits = limits
    }

    mutating func document() throws(JSONParseError) -> JSONValue {
        let result = try value(depth: 0)
        skipWhitespace()
        guard index == bytes.count else { throw .invalid("unexpected data after the JSON value", offset: index) }
        return result
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    private mutating func value(depth: Int) throws(JSONParseError) -> JSONValue {
        skipWhitespace()
        guard let byte = current else { throw .invalid("unexpected end of input, expected a value", offset: index) }
        values += 1
        guard values <= limits.maxValues else { throw .limitExceeded(.values(limits.maxValues), offset: index) }
        switch byte {
        case UInt8(ascii: "{"): return try object(depth: depth + 1)
        case UInt8(ascii: "["): return try array(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw .invalid("unexpected \(Self.describe(byte)), expected a value", offset: index)
        }
    }

    private mutating func enter(depth: Int) throws(JSONParseError) {
        guard depth <= limits.maxDepth else { throw .limitExceeded(.depth(limits.maxDepth), offset: index) }
        index += 1
        skipWhitespace()
    }

    private mutating func array(depth: Int) throws(JSONParseError) -> JSONValue {
        try enter(depth: depth)
        var elements: [JSONValue] = []
        if current == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            elements.append(try value(depth: depth))
            skipWhitespace()
            switch current {
            case UInt8(ascii: "]"):
                index += 1
                return .array(elements)
            case UInt8(ascii: ","):
                index += 1
                skipWhitespace()
                if current == UInt8(ascii: "]") { throw .invalid("trailing comma in an array", offset: index) }
            case let other:
                throw .invalid("unexpected \(Self.describe(other)) in an array, expected ',' or ']'", offset: index)
            }
        }
    }

    private mutating func object(depth: Int) throws(JSONParseError) -> JSONValue {
        try enter(depth: depth)
        var members: [String: JSONValue] = [:]
        if current == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            let keyOffset = index
            guard current == UInt8(ascii: "\"") else {
                throw .invalid("unexpected \(Self.describe(current)), expected a string key", offset: index)
            }
            let key = try string()
            // A repeated key means different things to different parsers (first wins, last wins, merge): refuse it.
            guard members[key] == nil else { throw .invalid("duplicate key \(Self.quote(key))", offset: keyOffset) }
            skipWhitespace()
            guard current == UInt8(ascii: ":") else {
                throw .invalid("unexpected \(Self.describe(current)) after a key, expected ':'", offset: index)
            }
            index += 1
            members[key] = try value(depth: depth)
            skipWhitespace()
            switch current {
            case UInt8(ascii: "}"):
                index += 1
                return .object(members)
            case UInt8(ascii: ","):
                index += 1
                skipWhitespace()
                if current == UInt8(ascii: "}") { throw .invalid("trailing comma in an object", offset: index) }
            case let other:
                throw .invalid("unexpected \(Self.describe(other)) in an object, expected ',' or '}'", offset: index)
            }
        }
    }

    private mutating func literal(_ word: String, _ value: JSONValue) throws(JSONParseError) -> JSONValue {
        let start = index
        for byte in word.utf8 {
            guard current == byte else { throw .invalid("invalid literal, expected '\(word)'", offset: start) }
            index += 1
        }
        return value
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`; a whole number that fits Int64 is `.int`.
    private mutating func number() throws(JSONParseError) -> JSONValue {
        let start = index
        if current == UInt8(ascii: "-") { index += 1 }
        if current == UInt8(ascii: "0") {
            index += 1
            if let next = current, Self.isDigit(next) { throw .invalid("leading zeros are not allowed", offset: start) }
        } else {
            try digits(after: "'-'")
        }
        var isWhole = true
        if current == UInt8(ascii: ".") {
            isWhole = false
            index += 1
            try digits(after: "'.'")
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            isWhole = false
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            try digits(after: "an exponent")
        }
        guard index - start <= limits.maxNumberBytes else {
            throw .limitExceeded(.numberBytes(limits.maxNumberBytes), offset: start)
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if isWhole, let integer = Int64(text) { return .int(integer) }
        guard let double = Double(text), double.isFinite else { throw .invalid("number is out of range", offset: start) }
        return .double(double)
    }

    private mutating func digits(after what: String) throws(JSONParseError) {
        guard let first = current, Self.isDigit(first) else {
            throw .invalid("unexpected \(Self.describe(current)), expected a digit after \(what)", offset: index)
        }
        while let byte = current, Self.isDigit(byte) { index += 1 }
    }

    private mutating func string() throws(JSONParseError) -> String {
        let start = index
        index += 1
        var decoded: [UInt8] = []
        while true {
            guard let byte = current else { throw .invalid("unterminated string", offset: start) }
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                guard let text = String(validating: decoded, as: UTF8.self) else {
                    throw .invalid("string is not valid UTF-8", offset: start)
                }
                return text
            case UInt8(ascii: "\\"):
                try escape(into: &decoded)
            case 0x00..<0x20:
                throw .invalid("unescaped control character \(Self.describe(byte)) in a string", offset: index)
            default:
                decoded.append(byte)
                index += 1
            }
            guard decoded.count <= limits.maxStringBytes else {
                throw .limitExceeded(.stringBytes(limits.maxStringBytes), offset: start)
            }
        }
    }

    private mutating func escape(into decoded: inout [UInt8]) throws(JSONParseError) {
        let start = index
        index += 1
        guard let byte = current else { throw .invalid("unterminated escape", offset: start) }
        index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): decoded.append(byte)
        case UInt8(ascii: "b"): decoded.append(0x08)
        case UInt8(ascii: "f"): decoded.append(0x0C)
        case UInt8(ascii: "n"): decoded.append(0x0A)
        case UInt8(ascii: "r"): decoded.append(0x0D)
        case UInt8(ascii: "t"): decoded.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = UInt32(try hexQuad(escapeAt: start))
            switch scalar {
            case 0xD800...0xDBFF:
                // A high surrogate must be followed at once by an escaped low surrogate; together they are one scalar.
                let lowStart = index
                guard current == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") else {
                    throw .invalid("unpaired surrogate \\u\(String(scalar, radix: 16, uppercase: true))", offset: start)
                }
                index += 2
                let low = UInt32(try hexQuad(escapeAt: lowStart))
                guard (0xDC00...0xDFFF).contains(low) else {
                    throw .invalid("unpaired surrogate \\u\(String(scalar, radix: 16, uppercase: true))", offset: start)
                }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            case 0xDC00...0xDFFF:
                throw .invalid("unpaired surrogate \\u\(String(scalar, radix: 16, uppercase: true))", offset: start)
            case 0:
                // No value needs it, and PostgreSQL's text cannot hold it: refused here, not failed in storage.
                throw .invalid("\\u0000 (NUL) is not accepted in a string", offset: start)
            default:
                break
            }
            // Every value left is a valid scalar: surrogates were paired or refused above.
            guard let unicode = Unicode.Scalar(scalar) else { throw .invalid("invalid \\u escape", offset: start) }
            decoded.append(contentsOf: UTF8.encode(unicode)!)
        default:
            throw .invalid("invalid escape \\\(Self.describe(byte))", offset: start)
        }
    }

    /// The four hex digits after `\u` (the index is just past the `u`).
    private mutating func hexQuad(escapeAt start: Int) throws(JSONParseError) -> UInt16 {
        var result: UInt16 = 0
        for _ in 0..<4 {
            guard let byte = current, let digit = byte.hexDigitValue else {
                throw .invalid("\\u must be followed by four hex digits", offset: start)
            }
            result = result << 4 | UInt16(digit)
            index += 1
        }
        return result
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    /// A byte as a message shows it: printable ASCII quoted, anything else in hex, nil as the end of input.
    private static func describe(_ byte: UInt8?) -> String {
        guard let byte else { return "end of input" }
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x" + (byte < 0x10 ? "0" : "") + String(byte, radix: 16, uppercase: true)
    }

    /// A key as a message shows it: at most 32 characters, so an error never echoes a large input back.
    private static func quote(_ key: String) -> String {
        key.unicodeScalars.count > 32 ? "\"\(String(key.unicodeScalars.prefix(32)))…\"" : "\"\(key)\""
    }
}
