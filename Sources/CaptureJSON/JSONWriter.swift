/// Writes a `JSONValue` as compact UTF-8 JSON (RFC 8259): object keys sorted, `/` not escaped, control
/// characters as `\uXXXX`, non-finite numbers as `null`. Every reply goes through here, so it avoids
/// `JSONEncoder`'s per-call set-up and its Codable round trip.
extension JSONValue {
    @inlinable public func encodedBytes() -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(256)
        JSONWriter.write(self, to: &output)
        return output
    }
}

/// Inlinable, as `JSONObjectWriter` is: the replies of the hot paths compile as if the writer were in their module.
public enum JSONWriter {
    @usableFromInline static let hexDigits = Array("0123456789abcdef".utf8)

    @inlinable public static func write(_ value: JSONValue, to output: inout [UInt8]) {
        switch value {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let flag): output.append(contentsOf: (flag ? "true" : "false").utf8)
        case .int(let number): output.append(contentsOf: String(number).utf8)
        case .double(let number):
            guard number.isFinite else { return output.append(contentsOf: "null".utf8) }
            if number == number.rounded(), abs(number) < 1e15 {
                output.append(contentsOf: String(Int64(number)).utf8)
            } else {
                output.append(contentsOf: "\(number)".utf8)
            }
        case .string(let text): writeString(text, to: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                write(element, to: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            // Pairs sorted once: no second hash lookup per key.
            for (index, member) in members.sorted(by: { $0.key < $1.key }).enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                writeString(member.key, to: &output)
                output.append(UInt8(ascii: ":"))
                write(member.value, to: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    @inlinable public static func writeString(_ text: String, to output: inout [UInt8]) {
        var text = text
        // From the string's own buffer: a `String.UTF8View` checks its representation at every index.
        text.withUTF8 { writeString(utf8: $0, to: &output) }
    }

    @inlinable static func writeString(utf8 text: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        // Most strings need no escape: copied whole.
        if !text.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            output.append(contentsOf: text)
            return output.append(UInt8(ascii: "\""))
        }
        for byte in text {
            switch byte {
            case UInt8(ascii: "\""): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case UInt8(ascii: "\n"): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case UInt8(ascii: "\r"): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case UInt8(ascii: "\t"): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20:
                output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                output.append(hexDigits[Int(byte >> 4)])
                output.append(hexDigits[Int(byte & 0xF)])
            default: output.append(byte)  // UTF-8 passes through; JSON text is UTF-8 (RFC 8259 §8.1)
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}
