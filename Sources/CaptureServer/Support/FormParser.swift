import CaptureCore
import CaptureJSON

/// Strict `application/x-www-form-urlencoded` parsing: bad escapes, invalid UTF-8 and repeated names are
/// refused with the parameter named, never guessed at. At most `maxParameters` parameters with names of at most
/// `maxNameBytes` bytes: no endpoint takes more than about 20, and the cap keeps the work one bounded pass that
/// stops at the first parameter too many.
enum FormParser {
    static let maxParameters = 64
    static let maxNameBytes = 64

    static func parse(_ bytes: some Collection<UInt8>) throws(CaptureError) -> [String: String] {
        // On contiguous bytes (a request body's buffer is): a `ByteBufferView`'s own indexing cost about a
        // microsecond of each API request.
        let parsed = bytes.withContiguousStorageIfAvailable(Self.parsed) ?? Array(bytes).withUnsafeBufferPointer(Self.parsed)
        return try parsed.get()
    }

    /// `parse(contiguous:)`'s answer as a value: `withContiguousStorageIfAvailable` passes errors on untyped.
    private static func parsed(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<[String: String], CaptureError> {
        Result { () throws(CaptureError) in try parse(contiguous: bytes) }
    }

    private static func parse(contiguous bytes: UnsafeBufferPointer<UInt8>) throws(CaptureError) -> [String: String] {
        var result: [String: String] = [:]
        var start = bytes.startIndex
        while start != bytes.endIndex {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "&")) ?? bytes.endIndex
            defer { start = end == bytes.endIndex ? end : bytes.index(after: end) }
            let pair = bytes[start..<end]
            if pair.isEmpty { continue }
            guard result.count < maxParameters else { throw .malformedRequest("body", "more than \(maxParameters) parameters") }
            let separator = pair.firstIndex(of: UInt8(ascii: "=")) ?? pair.endIndex
            let rawName = pair[..<separator]
            guard rawName.count <= maxNameBytes else {
                throw .malformedRequest("body", "a parameter name is longer than \(maxNameBytes) bytes")
            }
            let name = try decode(rawName, naming: String(decoding: rawName, as: UTF8.self))
            guard !name.isEmpty else { throw .malformedRequest("body", "a parameter has an empty name") }
            let value = separator == pair.endIndex ? "" : try decode(pair[pair.index(after: separator)...], naming: name)
            guard result[name] == nil else { throw .malformedRequest(name, "appears more than once") }
            result[name] = value
        }
        return result
    }

    private static func decode(_ encoded: Slice<UnsafeBufferPointer<UInt8>>, naming name: String) throws(CaptureError) -> String {
        // Most values (tokens, ids) have nothing to unescape: read them as they are.
        if !encoded.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) {
            return try validated(encoded, naming: name)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(encoded.count)
        var iterator = encoded.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "+"):
                bytes.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard let high = iterator.next()?.hexDigitValue, let low = iterator.next()?.hexDigitValue else {
                    throw .malformedRequest(name, "malformed percent-encoding")
                }
                bytes.append(high << 4 | low)
            default:
                bytes.append(byte)
            }
        }
        return try validated(bytes, naming: name)
    }

    private static func validated(_ bytes: some Collection<UInt8>, naming name: String) throws(CaptureError) -> String {
        guard let string = String(validating: bytes, as: UTF8.self) else {
            throw .malformedRequest(name, "is not valid UTF-8")
        }
        try QueryFields.refuseNUL(string, naming: name)
        return string
    }
}
