import CaptureCore
import Crypto
import Foundation
import Hummingbird

/// The widget, bridge and CSS files, read once at start-up, and the bundles joined from them (`AssetBundles`), each
/// with a strong ETag, a gzip copy made once (`CompressedBody`) and a content-addressed URL
/// (`/flows/assets/<name>.<hash>.<ext>`, `ContentAddress`) that is cached for good (docs/adr/0070).
struct StaticAssets: Sendable {
    /// Bytes served as they are, with a strong ETag from their SHA-256: the files here, the bundles, a client's
    /// theme (`ClientThemes`) and rendered flow pages (`RenderedPages`).
    struct Asset: Sendable {
        let bytes: ByteBuffer
        /// The same bytes gzip-coded, when that is worth sending (`CompressedBody.gzip`): made once, here.
        let gzip: ByteBuffer?
        let contentType: String
        let etag: String
        /// The gzip copy's own ETag: another representation, another validator (RFC 9110 §8.8.3).
        let gzipETag: String
        /// 16 hex digits of the SHA-256, the part of the content-addressed URL that changes with the bytes.
        let hash: String
        /// Extra fields of every reply (a page's `Vary`).
        var fields = HTTPFields()

        init(data: Data, contentType: String) {
            self.init(bytes: ByteBuffer(data: data), contentType: contentType)
        }

        init(bytes: ByteBuffer, contentType: String, fields: HTTPFields = HTTPFields()) {
            self.bytes = bytes
            self.contentType = contentType
            let digest = Data(SHA256.hash(data: bytes.readableBytesView).prefix(16)).hexString
            etag = "\"\(digest)\""
            gzipETag = "\"\(digest)-gzip\""
            hash = String(digest.prefix(16))
            gzip = CompressedBody.gzip(bytes, contentType: contentType)
            var fields = fields
            if gzip != nil {
                // Caches keep one copy per coding; a reply without gzip says so too, or a cache could hand its
                // uncompressed copy's 304 to a client holding the gzip one.
                fields[.vary] = fields[.vary].map { "\($0), Accept-Encoding" } ?? "Accept-Encoding"
            }
            self.fields = fields
        }

        /// How long a reply may be kept without asking again.
        enum Lifetime {
            /// Stored, revalidated before each use (`no-cache` with the ETag): a URL whose bytes may change.
            case revalidated
            /// A content-addressed URL: its bytes never change, so kept a year without asking (`immutable`).
            case immutable
        }

        /// 200 with the body (gzip-coded when `Accept-Encoding` allows and a gzip copy exists), or 304 when the
        /// client already has this version in either coding.
        func response(headers request: HTTPFields, lifetime: Lifetime = .revalidated) -> Response {
            let coded = gzip != nil && AcceptEncoding.allowsGzip(request[.acceptEncoding])
            var headers = fields
            headers[.eTag] = coded ? gzipETag : etag
            headers[.cacheControl] =
                switch lifetime {
                case .revalidated: "no-cache"
                case .immutable: "public, max-age=31536000, immutable"
                }
            if let ifNoneMatch = request[.ifNoneMatch],
                Self.list(ifNoneMatch, contains: etag) || (gzip != nil && Self.list(ifNoneMatch, contains: gzipETag))
            {
                return Response(status: .notModified, headers: headers)
            }
            headers[.contentType] = contentType
            if coded, let gzip {
                headers[.contentEncoding] = "gzip"
                return Response(status: .ok, headers: headers, body: .init(byteBuffer: gzip))
            }
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

    /// By the name it is served under: the files of WebFlows/assets and the bundles of its bundles.json.
    let assets: [String: Asset]

    static func load(directory: URL) throws -> StaticAssets {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        var files: [String: Data] = [:]
        for name in names where !name.hasPrefix(".") && contentType(of: name) != nil {
            files[name] = try Data(contentsOf: directory.appendingPathComponent(name))
        }
        let bundles = try AssetBundles.load(directory: directory, files: files)
        var assets: [String: Asset] = [:]
        for (name, data) in files.merging(bundles.joined, uniquingKeysWith: { file, _ in file }) {
            assets[name] = Asset(data: data, contentType: contentType(of: name) ?? "application/octet-stream")
        }
        // Scripts outside the bundles (the loaders janrain-load.js and capture-ui.js) name the bundles by their
        // content-addressed URLs. The bundles' members are still served as written, for anything that names them.
        let addressed = StaticAssets(assets: assets)
        for (name, data) in files where name.hasSuffix(".js") && !bundles.members.contains(name) {
            let text = String(decoding: data, as: UTF8.self)
            let rewritten = addressed.addressing(text)
            if rewritten != text {
                assets[name] = Asset(data: Data(rewritten.utf8), contentType: contentType(of: name) ?? "text/javascript")
            }
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

    /// The content-addressed path of an asset (`/flows/assets/<name>.<hash>.<ext>`), nil for a name that is not one.
    func path(of name: String) -> String? {
        assets[name].map { "/flows/assets/\(ContentAddress.name(name, hash: $0.hash))" }
    }

    /// `text` with every `/flows/assets/<name>` of a known asset replaced by its content-addressed path: what pages
    /// and loaders are written with becomes what they are served with.
    func addressing(_ text: String) -> String {
        var output = ""
        var cursor = text.startIndex
        for match in Self.reference.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
            guard let whole = Range(match.range, in: text), let nameRange = Range(match.range(at: 1), in: text),
                let path = path(of: String(text[nameRange]))
            else { continue }
            output += text[cursor..<whole.lowerBound] + path
            cursor = whole.upperBound
        }
        return output + text[cursor...]
    }

    private static let reference = try! NSRegularExpression(
        pattern: #"/flows/assets/([A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*\.(?:js|css|svg|png))\b"#)

    /// `GET /flows/assets/<name>`: 200 or 304, revalidated each time (the name stays, the bytes may change).
    /// `GET /flows/assets/<name>.<hash>.<ext>`: kept for good when `hash` is the asset's; another hash (a page from
    /// an instance with other files, mid-deploy) still gets today's bytes, revalidated like the plain name.
    func response(for file: String, headers: HTTPFields) -> Response? {
        Self.response(for: file, headers: headers) { assets[$0] }
    }

    /// The reply for `file`, a plain or a content-addressed name of an asset `lookup` finds.
    static func response(for file: String, headers: HTTPFields, lookup: (String) -> Asset?) -> Response? {
        // The addressed form first: a client id may hold dots, so `<client>.<hash>.css` is also a plain name the
        // themes answer (with the empty stylesheet).
        if let (name, hash) = ContentAddress.parse(file), let asset = lookup(name) {
            return asset.response(headers: headers, lifetime: hash == asset.hash ? .immutable : .revalidated)
        }
        return lookup(file)?.response(headers: headers)
    }
}
