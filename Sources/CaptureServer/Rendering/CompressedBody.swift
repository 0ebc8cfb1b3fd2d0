import CompressNIO
import NIOCore

/// gzip copies of what the pages are made of (docs/adr/0070), made once per asset, bundle and rendered page through
/// compress-nio (zlib), never per request.
enum CompressedBody {
    /// Below this a body goes as it is: the coding's own header and trailer (18 bytes) and `Content-Encoding` would
    /// eat most of what it saves, and a small reply fits one packet either way.
    static let minimumBytes = 1024

    /// The gzip copy of `bytes` at zlib's best compression, or nil when the type does not compress (images other
    /// than SVG), the body is small, or the copy would not be at least a tenth smaller.
    static func gzip(_ bytes: ByteBuffer, contentType: String) -> ByteBuffer? {
        guard bytes.readableBytes >= minimumBytes, compresses(contentType) else { return nil }
        var input = bytes
        guard
            let coded = try? input.compress(
                with: .gzip(configuration: ZlibConfiguration(windowSize: 15, compressionLevel: 9, memoryLevel: 9))),
            coded.readableBytes * 10 <= bytes.readableBytes * 9
        else { return nil }
        return coded
    }

    /// Text, scripts, JSON and SVG.
    static func compresses(_ contentType: String) -> Bool {
        let type = contentType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        return type.hasPrefix("text/") || type == "application/json" || type == "image/svg+xml"
            || type == "application/javascript"
    }
}
