import CaptureCore
import CaptureJSON

/// HTTP Basic client authentication (RFC 6749 §2.3.1, RFC 7617), read without Foundation's string bridging: it
/// runs on every introspection. Each part is percent-decoded; nil where its escapes or UTF-8 are broken.
struct BasicCredentials {
    let id: String?
    let secret: String?

    /// The credentials of `Basic <base64(id:secret)>`; nil when the header is another scheme; `invalidClient`
    /// when it is Basic but not base64 of UTF-8 with a colon.
    static func parse(_ header: String) throws(CaptureError) -> BasicCredentials? {
        let scheme = "basic ".utf8
        guard header.utf8.count >= scheme.count, zip(header.utf8, scheme).allSatisfy({ $0 | 0x20 == $1 }) else { return nil }
        // Decoded from the header's own buffer: walking a `String.UTF8View` checks its representation at every index.
        var header = header
        guard let decoded = header.withUTF8({ Base64.decode($0[scheme.count...].trimmingOptionalWhitespace) }),
            let colon = decoded.firstIndex(of: UInt8(ascii: ":")), String(validating: decoded, as: UTF8.self) != nil
        else { throw .invalidClient }
        return BasicCredentials(id: percentDecoded(decoded[..<colon]), secret: percentDecoded(decoded[(colon + 1)...]))
    }

    /// `%XX` escapes decoded (nothing else: a `+` stays a `+`); nil for a bad escape or bytes that are not UTF-8.
    static func percentDecoded(_ encoded: some Collection<UInt8>) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(encoded.count)
        var iterator = encoded.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next()?.hexDigitValue, let low = iterator.next()?.hexDigitValue else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
