/// Splits a filter into tokens. Strings are in single quotes; a quote inside one is written doubled (`'O''Brien'`) or
/// with a backslash (`'O\'Brien'`), and `\\` is one backslash; any other backslash stays as it is (`'C:\dir'`).
/// Control characters other than tab, line feed and carriage return are refused anywhere (a NUL cannot reach a
/// database as text). Everything the grammar does not know is refused with its position.
struct FilterLexer {
    private let scalars: [Unicode.Scalar]
    private var index = 0

    init(_ text: String) {
        scalars = Array(text.unicodeScalars)
    }

    static func tokens(_ text: String) throws(CaptureError) -> [FilterToken] {
        var lexer = FilterLexer(text)
        var tokens: [FilterToken] = []
        while true {
            let token = try lexer.next()
            tokens.append(token)
            if token.kind == .end { return tokens }
        }
    }

    private func peek(_ offset: Int = 0) -> Unicode.Scalar? {
        index + offset < scalars.count ? scalars[index + offset] : nil
    }

    private mutating func next() throws(CaptureError) -> FilterToken {
        while let scalar = peek(), scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r" { index += 1 }
        let start = index
        let position = start + 1
        guard let scalar = peek() else { return FilterToken(kind: .end, position: position) }
        if scalar.properties.generalCategory == .control {
            throw EntityFilter.error("a control character is not allowed", at: position)
        }
        switch scalar {
        case "(":
            index += 1
            return FilterToken(kind: .open, position: position)
        case ")":
            index += 1
            return FilterToken(kind: .close, position: position)
        case "'":
            return FilterToken(kind: .string(try string()), position: position)
        case "=":
            index += 1
            if peek() == "=" { throw EntityFilter.error("'==' is not an operator: use '='", at: position) }
            return FilterToken(kind: .comparison(.equal), position: position)
        case "!":
            index += 1
            if peek() == "=" {
                index += 1
                return FilterToken(kind: .comparison(.notEqual), position: position)
            }
            return FilterToken(kind: .bang, position: position)
        case "<", ">":
            index += 1
            if scalar == "<" && peek() == ">" { throw EntityFilter.error("'<>' is not an operator: use '!='", at: position) }
            let orEqual = peek() == "="
            if orEqual { index += 1 }
            let comparison: FilterComparison =
                scalar == "<" ? (orEqual ? .lessOrEqual : .less) : (orEqual ? .greaterOrEqual : .greater)
            return FilterToken(kind: .comparison(comparison), position: position)
        case "\"":
            throw EntityFilter.error("strings are written in single quotes", at: position)
        default:
            if Self.isDigit(scalar) || ((scalar == "-" || scalar == "+" || scalar == ".") && peek(1).map(Self.isDigit) == true) {
                return FilterToken(kind: .number(try number()), position: position)
            }
            if Self.isNameStart(scalar) { return FilterToken(kind: .word(word()), position: position) }
            throw EntityFilter.error("unexpected character '\(Self.shown(scalar))'", at: position)
        }
    }

    /// A quoted string from its opening quote.
    private mutating func string() throws(CaptureError) -> String {
        let position = index + 1
        index += 1
        var text: [UInt8] = []
        while let scalar = peek() {
            if scalar.properties.generalCategory == .control && scalar != "\t" && scalar != "\n" && scalar != "\r" {
                throw EntityFilter.error("a control character is not allowed", at: index + 1)
            }
            if scalar == "'" {
                if peek(1) == "'" {
                    text.append(UInt8(ascii: "'"))
                    index += 2
                    continue
                }
                index += 1
                return String(decoding: text, as: UTF8.self)
            }
            if scalar == "\\", let escaped = peek(1), escaped == "'" || escaped == "\\" {
                text.append(UInt8(escaped.value))
                index += 2
                continue
            }
            text.append(contentsOf: scalar.utf8)
            index += 1
        }
        throw EntityFilter.error("the string that starts here has no closing quote", at: position)
    }

    /// Digits with an optional sign, fraction and exponent; a letter or `_` right after one is refused (`12abc`).
    private mutating func number() throws(CaptureError) -> String {
        let start = index
        if peek() == "-" || peek() == "+" { index += 1 }
        while let scalar = peek(), Self.isDigit(scalar) { index += 1 }
        if peek() == ".", peek(1).map(Self.isDigit) == true {
            index += 1
            while let scalar = peek(), Self.isDigit(scalar) { index += 1 }
        }
        if peek() == "e" || peek() == "E" {
            let sign = peek(1) == "-" || peek(1) == "+" ? 1 : 0
            if peek(1 + sign).map(Self.isDigit) == true {
                index += 1 + sign
                while let scalar = peek(), Self.isDigit(scalar) { index += 1 }
            }
        }
        if let scalar = peek(), Self.isNameStart(scalar) || Self.isDigit(scalar) || scalar == "." {
            throw EntityFilter.error("'\(Self.shown(scalar))' cannot follow a number", at: index + 1)
        }
        return Self.ascii(scalars[start..<index])
    }

    /// A name, keyword or dotted path: ASCII letters, digits, `_` and `.` (the path is checked when it is resolved).
    private mutating func word() -> String {
        let start = index
        while let scalar = peek(), Self.isNameStart(scalar) || Self.isDigit(scalar) || scalar == "." { index += 1 }
        return Self.ascii(scalars[start..<index])
    }

    /// Scalars the lexer took as ASCII (digits, letters, signs) as a string.
    private static func ascii(_ scalars: ArraySlice<Unicode.Scalar>) -> String {
        String(decoding: scalars.map { UInt8(truncatingIfNeeded: $0.value) }, as: UTF8.self)
    }

    static func isDigit(_ scalar: Unicode.Scalar) -> Bool { scalar >= "0" && scalar <= "9" }

    static func isNameStart(_ scalar: Unicode.Scalar) -> Bool {
        (scalar >= "a" && scalar <= "z") || (scalar >= "A" && scalar <= "Z") || scalar == "_"
    }

    /// A character as an error shows it: printable ones as they are, others by code point.
    static func shown(_ scalar: Unicode.Scalar) -> String {
        scalar.properties.generalCategory == .control || scalar.properties.isWhitespace
            ? "U+" + String(scalar.value, radix: 16, uppercase: true) : String(scalar)
    }
}
