/// A file's content-addressed name (docs/adr/0070): the first 16 hex digits of its SHA-256 before its extension,
/// `capture.css` → `capture.0123456789abcdef.css`. Served beside the plain name, under the same route.
enum ContentAddress {
    static let hashLength = 16

    /// `name` with `hash` before its last extension.
    static func name(_ name: String, hash: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "\(name).\(hash)" }
        return "\(name[..<dot]).\(hash)\(name[dot...])"
    }

    /// The plain name and the hash of a content-addressed name, nil when `file` is not one.
    static func parse(_ file: String) -> (name: String, hash: String)? {
        let parts = file.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count >= 3 else { return nil }
        let hash = parts[parts.count - 2]
        guard hash.count == hashLength, hash.allSatisfy({ $0.isHexDigit && !$0.isUppercase }) else { return nil }
        let name = (parts[..<(parts.count - 2)] + [parts[parts.count - 1]]).joined(separator: ".")
        guard !parts[0].isEmpty else { return nil }
        return (name, String(hash))
    }
}
