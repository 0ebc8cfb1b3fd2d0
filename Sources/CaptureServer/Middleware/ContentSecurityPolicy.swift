/// The one Content-Security-Policy of every reply: nothing but the service's own scripts, styles, images and
/// requests; no framing; `frame-src janrain:` so the bridge can signal its host. A page that carries its first
/// screen's script and styles inline (`InlineAssets`, docs/adr/0073) allows exactly those texts by their hashes,
/// never 'unsafe-inline'.
enum ContentSecurityPolicy {
    static let strict = header(allowing: InlineHashes())

    static func header(allowing inline: InlineHashes) -> String {
        [
            "default-src 'none'", (["script-src 'self'"] + inline.scripts).joined(separator: " "),
            (["style-src 'self'"] + inline.styles).joined(separator: " "), "img-src 'self' data:", "connect-src 'self'",
            "form-action 'self'", "frame-src janrain:", "base-uri 'none'", "frame-ancestors 'none'",
        ].joined(separator: "; ")
    }
}
