import Foundation

/// `html` with each content-addressed URL (`/flows/assets/<name>.<hash>.<ext>`, and the themes') written back with
/// the plain name, for tests about what a page links rather than which version (docs/adr/0070).
func withoutContentAddresses(_ html: String) -> String {
    html.replacingOccurrences(
        of: #"(/flows/(?:assets|themes)/[A-Za-z0-9._-]+?)\.[0-9a-f]{16}(\.[a-z]+)"#, with: "$1$2", options: .regularExpression)
}

/// The content-addressed paths `html` names, in order.
func contentAddressedPaths(in html: String) -> [String] {
    let pattern = try! NSRegularExpression(pattern: #"/flows/(?:assets|themes)/[A-Za-z0-9._-]+?\.[0-9a-f]{16}\.[a-z]+"#)
    return pattern.matches(in: html, range: NSRange(html.startIndex..., in: html)).compactMap {
        Range($0.range, in: html).map { String(html[$0]) }
    }
}
