import Foundation

/// A page's markup without the texts it carries inline (its scripts and stylesheets, docs/adr/0073): what a test
/// that looks for an element or attribute of the page itself should read, so a script's mention of one is not it.
func markupOnly(_ html: String) -> String {
    html.replacingOccurrences(
        of: #"(<(script|style)\b[^>]*>)[\s\S]*?(</\2>)"#, with: "$1$3", options: .regularExpression)
}
