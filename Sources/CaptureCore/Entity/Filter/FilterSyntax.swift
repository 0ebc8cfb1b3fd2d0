/// A filter as written, before its paths and values meet the schema (`EntityFilter.resolve`): what
/// `FilterParser` builds. Positions are 1-based, in Unicode scalars.
indirect enum FilterSyntax: Equatable {
    /// A value as written: quoted text, an unquoted number, or `true` / `false`.
    enum Literal: Equatable {
        case string(String)
        case number(String)
        case boolean(Bool)
    }

    case or([FilterSyntax])
    case and([FilterSyntax])
    case not(FilterSyntax)
    case isNull(path: String, at: Int, negated: Bool)
    case compare(path: String, at: Int, FilterComparison, Literal, valueAt: Int)
}

/// Janrain's filter grammar by recursive descent, highest precedence first: `is null` / `is not null`; `not` / `!`;
/// `>` `>=` `<` `<=`; `=` `!=`; `and`; `or`; parentheses group. A comparison is an attribute path, an operator and a
/// value, so `not gender = 'male'` reads as `not (gender = 'male')` (the only reading that compares a path with a
/// value). Keywords are case-insensitive. Depth (parentheses and `not`) and the number of nodes are bounded
/// (`EntityFilter.Limits`), so no filter makes the recursion, or the SQL built from the tree, large.
struct FilterParser {
    private let tokens: [FilterToken]
    private var index = 0
    private var nodes = 0
    private let limits: EntityFilter.Limits

    private init(tokens: [FilterToken], limits: EntityFilter.Limits) {
        self.tokens = tokens
        self.limits = limits
    }

    static func parse(_ text: String, limits: EntityFilter.Limits = .standard) throws(CaptureError) -> FilterSyntax {
        guard text.utf8.count <= limits.maxLength else {
            throw .invalidArgument("filter", "is longer than \(limits.maxLength) bytes")
        }
        var parser = FilterParser(tokens: try FilterLexer.tokens(text), limits: limits)
        if parser.current.kind == .end { throw EntityFilter.error("the filter is empty", at: 1) }
        let tree = try parser.disjunction(depth: 0)
        guard parser.current.kind == .end else {
            throw EntityFilter.error(
                "unexpected \(parser.current.described): expected 'and', 'or' or the end", at: parser.current.position)
        }
        return tree
    }

    private var current: FilterToken { tokens[index] }

    private mutating func advance() { index += 1 }

    private mutating func counted(_ node: FilterSyntax, at position: Int) throws(CaptureError) -> FilterSyntax {
        nodes += 1
        guard nodes <= limits.maxNodes else {
            throw EntityFilter.error("the filter has more than \(limits.maxNodes) conditions and operators", at: position)
        }
        return node
    }

    private mutating func disjunction(depth: Int) throws(CaptureError) -> FilterSyntax {
        var terms = [try conjunction(depth: depth)]
        while current.isKeyword("or") {
            let position = current.position
            advance()
            terms.append(try conjunction(depth: depth))
            _ = try counted(.or([]), at: position)
        }
        return terms.count == 1 ? terms[0] : .or(terms)
    }

    private mutating func conjunction(depth: Int) throws(CaptureError) -> FilterSyntax {
        var terms = [try unary(depth: depth)]
        while current.isKeyword("and") {
            let position = current.position
            advance()
            terms.append(try unary(depth: depth))
            _ = try counted(.and([]), at: position)
        }
        return terms.count == 1 ? terms[0] : .and(terms)
    }

    private mutating func unary(depth: Int) throws(CaptureError) -> FilterSyntax {
        guard current.isKeyword("not") || current.kind == .bang else { return try primary(depth: depth) }
        let position = current.position
        try checkDepth(depth + 1, at: position)
        advance()
        return try counted(.not(try unary(depth: depth + 1)), at: position)
    }

    private func checkDepth(_ depth: Int, at position: Int) throws(CaptureError) {
        guard depth <= limits.maxDepth else {
            throw EntityFilter.error("the filter nests deeper than \(limits.maxDepth) levels", at: position)
        }
    }

    private mutating func primary(depth: Int) throws(CaptureError) -> FilterSyntax {
        let token = current
        switch token.kind {
        case .open:
            try checkDepth(depth + 1, at: token.position)
            advance()
            let inner = try disjunction(depth: depth + 1)
            guard current.kind == .close else {
                throw EntityFilter.error(
                    "expected ')' to close the '(' at position \(token.position), found \(current.described)",
                    at: current.position)
            }
            advance()
            if current.isKeyword("is") || current.isKeyword("contains") || Self.isComparison(current) {
                throw EntityFilter.error(
                    "\(current.described) compares an attribute, not a condition in parentheses", at: current.position)
            }
            return inner
        case .word(let word) where !Self.keywords.contains(word.lowercased()):
            advance()
            return try condition(on: word, at: token.position)
        case .end:
            throw EntityFilter.error("the filter ends where an attribute, 'not' or '(' was expected", at: token.position)
        default:
            throw EntityFilter.error(
                "unexpected \(token.described): expected an attribute, 'not' or '('", at: token.position)
        }
    }

    /// What follows a path: `is [not] null`, or an operator and a value.
    private mutating func condition(on path: String, at position: Int) throws(CaptureError) -> FilterSyntax {
        let token = current
        if token.isKeyword("is") {
            advance()
            let negated = current.isKeyword("not")
            if negated { advance() }
            guard current.isKeyword("null") else {
                throw EntityFilter.error(
                    "expected 'null' after '\(negated ? "is not" : "is")', found \(current.described)", at: current.position)
            }
            advance()
            return try counted(.isNull(path: path, at: position, negated: negated), at: position)
        }
        if token.isKeyword("contains") {
            throw CaptureError.filterOperatorRemoved("contains")
        }
        guard case .comparison(let comparison) = token.kind else {
            throw EntityFilter.error(
                "expected an operator (=, !=, <, <=, >, >=) or 'is null' after '\(path)', found \(token.described)",
                at: token.position)
        }
        advance()
        let valueToken = current
        let literal: FilterSyntax.Literal
        switch valueToken.kind {
        case .string(let text): literal = .string(text)
        case .number(let text): literal = .number(text)
        case .word(let word) where word.lowercased() == "true": literal = .boolean(true)
        case .word(let word) where word.lowercased() == "false": literal = .boolean(false)
        case .word(let word) where word.lowercased() == "null":
            throw EntityFilter.error("compare with null by 'is null' or 'is not null'", at: valueToken.position)
        default:
            throw EntityFilter.error(
                "expected a value ('text', a number, true or false) after '\(comparison.rawValue)', found "
                    + valueToken.described, at: valueToken.position)
        }
        advance()
        if Self.isComparison(current) || current.isKeyword("is") {
            throw EntityFilter.error(
                "\(current.described) cannot follow a comparison: join conditions with 'and' or 'or'", at: current.position)
        }
        return try counted(.compare(path: path, at: position, comparison, literal, valueAt: valueToken.position), at: position)
    }

    private static func isComparison(_ token: FilterToken) -> Bool {
        if case .comparison = token.kind { return true }
        return false
    }

    /// Words that are never a path where a path is expected (`true`, `false` and `null` are values).
    private static let keywords: Set<String> = ["and", "or", "not", "is", "null", "true", "false", "contains"]
}
