/// One token of a filter (`FilterLexer`), with the 1-based position of its first character in the filter's text
/// (counted in Unicode scalars), which errors name.
struct FilterToken: Equatable {
    enum Kind: Equatable {
        /// A name or dotted path (`gender`, `primaryAddress.city`), or a keyword (`and`, `IS`, `true`…).
        case word(String)
        /// The text of a single-quoted string, its escapes undone.
        case string(String)
        /// An unquoted number as written (`25`, `-3.5`, `1e3`).
        case number(String)
        case comparison(FilterComparison)
        /// `!`, the same as `not`.
        case bang
        case open, close
        case end
    }

    var kind: Kind
    var position: Int

    /// How an error names it.
    var described: String {
        switch kind {
        case .word(let word): "'\(word)'"
        case .string: "a quoted string"
        case .number(let number): "'\(number)'"
        case .comparison(let comparison): "'\(comparison.rawValue)'"
        case .bang: "'!'"
        case .open: "'('"
        case .close: "')'"
        case .end: "the end of the filter"
        }
    }

    /// The keyword this word is, matched case-insensitively (`AND`, `Is Not Null`).
    func isKeyword(_ keyword: String) -> Bool {
        guard case .word(let word) = kind else { return false }
        return word.lowercased() == keyword
    }
}
