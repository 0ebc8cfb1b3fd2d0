/// A flat JSON object written member by member, for the replies of the hot paths (introspection, `/verify`):
/// no dictionary built, hashed and sorted per request. The caller names the members in `JSONWriter`'s order (keys
/// sorted; checked in debug builds), so the bytes are exactly those `JSONValue.encodedBytes()` writes for the same
/// object, which stays the definition (tests compare the two).
public struct JSONObjectWriter {
    @usableFromInline var output: [UInt8]
    @usableFromInline var lastKey: StaticString?

    @inlinable public init(capacity: Int = 256) {
        output = []
        output.reserveCapacity(capacity)
        output.append(UInt8(ascii: "{"))
    }

    @inlinable public mutating func member(_ key: StaticString, _ value: String) {
        writeKey(key)
        JSONWriter.writeString(value, to: &output)
    }

    @inlinable public mutating func member(_ key: StaticString, _ value: Int64) {
        writeKey(key)
        JSONWriter.write(.int(value), to: &output)
    }

    @inlinable public mutating func member(_ key: StaticString, _ value: Bool) {
        writeKey(key)
        JSONWriter.write(.bool(value), to: &output)
    }

    /// The object, closed.
    @inlinable public consuming func finished() -> [UInt8] {
        output.append(UInt8(ascii: "}"))
        return output
    }

    /// Keys are the writer's own constants: plain ASCII that needs no escape, in ascending order.
    @inlinable mutating func writeKey(_ key: StaticString) {
        assert(lastKey.map { Self.text($0) < Self.text(key) } ?? true, "JSONObjectWriter: \(key) out of order")
        assert(!Self.text(key).utf8.contains { $0 < 0x20 || $0 >= 0x80 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") })
        if lastKey != nil { output.append(UInt8(ascii: ",")) }
        lastKey = key
        output.append(UInt8(ascii: "\""))
        key.withUTF8Buffer { output.append(contentsOf: $0) }
        output.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
    }

    @inlinable static func text(_ key: StaticString) -> String { key.withUTF8Buffer { String(decoding: $0, as: UTF8.self) } }
}
