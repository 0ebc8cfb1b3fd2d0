import CaptureCore
import Crypto
import Foundation
import Hummingbird

/// The widget, bridge and CSS files, read once at start-up, each with a strong ETag.
struct StaticAssets: Sendable {
    /// Bytes served as they are, with a strong ETag from their SHA-256: the files here, and rendered flow pages
    /// (`RenderedPages`).
    struct Asset: Sendable {
        let bytes: ByteBuffer
        let contentType: String
        let etag: String
        /// Extra fields of every reply (a page's `Vary`).
        var fields = HTTPFields()

        init(data: Data, contentType: String) {
            self.init(bytes: ByteBuffer(data: data), contentType: contentType)
        }

        init(bytes: ByteBuffer, contentType: String, fields: HTTPFields = HTTPFields()) {
            self.bytes = bytes
            self.contentType = contentType
            self.fields = fields
            etag = "\"\(Data(SHA256.hash(data: bytes.readableBytesView).prefix(16)).hexString)\""
        }

        /// 200 with the body, or 304 when the client already has this version; stored, revalidated before use.
        func response(ifNoneMatch: String?) -> Response {
            var headers = fields
            headers[.eTag] = etag
            headers[.cacheControl] = "no-cache"
            if let ifNoneMatch, Self.list(ifNoneMatch, contains: etag) {
                return Response(status: .notModified, headers: headers)
            }
            headers[.contentType] = contentType
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: bytes))
        }

        /// Whether a comma-separated list of entity tags (`If-None-Match`) holds `etag`, each compared without the
        /// spaces and tabs around it.
        static func list(_ header: String, contains etag: String) -> Bool {
            header.utf8.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false).contains { item in
                item.trimmingOptionalWhitespace.elementsEqual(etag.utf8)
            }
        }
    }

    let assets: [String: Asset]

    static func load(directory: URL) throws -> StaticAssets {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        var assets: [String: Asset] = [:]
        for name in names where !name.hasPrefix(".") {
            guard let type = contentType(of: name) else { continue }
            let data = try Data(contentsOf: directory.appendingPathComponent(name))
            assets[name] = Asset(data: data, contentType: type)
        }
        return StaticAssets(assets: assets)
    }

    static func contentType(of name: String) -> String? {
        switch (name as NSString).pathExtension {
        case "js": "text/javascript; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "svg": "image/svg+xml"
        case "png": "image/png"
        default: nil
        }
    }

    /// 200 with the body, or 304 when the client already has this version.
    func response(for name: String, ifNoneMatch: String?) -> Response? {
        assets[name]?.response(ifNoneMatch: ifNoneMatch)
    }
}
