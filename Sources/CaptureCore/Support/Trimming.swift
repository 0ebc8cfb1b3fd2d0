import Foundation

extension String {
    /// The text without leading and trailing white space and line breaks, as Foundation's
    /// `trimmingCharacters(in: .whitespacesAndNewlines)` gives it, without Foundation's copy when there is none to
    /// remove (the usual case: an address typed or sent by a backend).
    var trimmedOfWhitespace: String {
        guard let first = unicodeScalars.first, let last = unicodeScalars.last else { return self }
        if !first.properties.isWhitespace && !last.properties.isWhitespace { return self }
        return trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Nothing but white space and line breaks (or nothing at all).
    var isBlank: Bool { unicodeScalars.allSatisfy(\.properties.isWhitespace) }
}
