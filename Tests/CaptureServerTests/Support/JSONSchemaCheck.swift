import CaptureJSON
import Foundation

/// Where a JSON value breaks a schema: an RFC 6901 pointer into the value, and what is wrong there (naming the
/// offending value).
struct SchemaProblem: Sendable, Equatable, CustomStringConvertible {
    let pointer: String
    let message: String

    var description: String { "\(pointer.isEmpty ? "/" : pointer): \(message)" }
}

/// Checks a JSON value against a JSON Schema 2020-12 schema of `WebFlows/api/openapi.json`, for the keywords that
/// document uses (OpenAPIReplyCheck counts on it). A keyword it does not know is itself a problem, so a schema that
/// grows a new keyword fails loudly here instead of being passed unchecked. `format: date-time` is checked as RFC 3339
/// (the SDKs parse those stamps); other formats are annotations, as 2020-12 makes them by default.
struct JSONSchemaCheck: Sendable {
    /// The document `$ref`s point into (`#/components/schemas/…`).
    let root: JSONValue

    /// Keywords that describe without constraining.
    static let annotations: Set<String> = [
        "description", "title", "examples", "default", "deprecated", "readOnly", "writeOnly", "$comment",
    ]

    func problems(_ value: JSONValue, against schema: JSONValue, at pointer: String = "") -> [SchemaProblem] {
        switch schema {
        case .bool(true): return []
        case .bool(false):
            return [SchemaProblem(pointer: pointer, message: "no value is allowed here, found \(Self.show(value))")]
        case .object(let keywords): return problems(value, keywords: keywords, at: pointer)
        default: return [SchemaProblem(pointer: pointer, message: "the schema is not a schema: \(Self.show(schema))")]
        }
    }

    private func problems(_ value: JSONValue, keywords: [String: JSONValue], at pointer: String) -> [SchemaProblem] {
        var found: [SchemaProblem] = []
        func problem(_ message: String) { found.append(SchemaProblem(pointer: pointer, message: message)) }
        for (keyword, argument) in keywords.sorted(by: { $0.key < $1.key }) {
            switch keyword {
            case "$ref":
                guard let reference = argument.stringValue, let target = resolve(reference) else {
                    problem("unresolved $ref \(Self.show(argument))")
                    continue
                }
                found += problems(value, against: target, at: pointer)
            case "type":
                let names = Self.strings(argument)
                if !names.contains(where: { Self.value(value, hasType: $0) }) {
                    problem("expected type \(names.joined(separator: " or ")), found \(Self.show(value))")
                }
            case "const":
                if !Self.equal(value, argument) { problem("expected \(Self.show(argument)), found \(Self.show(value))") }
            case "enum":
                if case .array(let choices) = argument, !choices.contains(where: { Self.equal(value, $0) }) {
                    problem("expected one of \(Self.show(argument)), found \(Self.show(value))")
                }
            case "properties", "additionalProperties":
                // Both read together below: additionalProperties applies to the members properties does not name.
                continue
            case "required":
                if case .object(let members) = value {
                    for name in Self.strings(argument) where members[name] == nil {
                        problem("required member \"\(name)\" is missing from \(Self.show(value))")
                    }
                }
            case "items":
                if case .array(let elements) = value {
                    for (index, element) in elements.enumerated() {
                        found += problems(element, against: argument, at: pointer + "/\(index)")
                    }
                }
            case "oneOf", "anyOf", "allOf":
                found += combined(keyword, value, branches: argument, at: pointer)
            case "minimum", "maximum":
                if let number = Self.number(value), let bound = Self.number(argument),
                    keyword == "minimum" ? number < bound : number > bound
                {
                    problem("\(keyword) is \(Self.show(argument)), found \(Self.show(value))")
                }
            case "minLength", "maxLength":
                if case .string(let text) = value, let bound = Self.number(argument) {
                    let length = Double(text.unicodeScalars.count)
                    if keyword == "minLength" ? length < bound : length > bound {
                        problem("\(keyword) is \(Self.show(argument)), found \(Self.show(value))")
                    }
                }
            case "minItems", "maxItems", "minProperties", "maxProperties":
                let count: Int? =
                    switch value {
                    case .array(let elements) where keyword.hasSuffix("Items"): elements.count
                    case .object(let members) where keyword.hasSuffix("Properties"): members.count
                    default: nil
                    }
                if let count, let bound = Self.number(argument),
                    keyword.hasPrefix("min") ? Double(count) < bound : Double(count) > bound
                {
                    problem("\(keyword) is \(Self.show(argument)), found \(count) in \(Self.show(value))")
                }
            case "pattern":
                if case .string(let text) = value, let source = argument.stringValue, !Self.matches(text, source) {
                    problem("does not match pattern \(Self.show(argument)): \(Self.show(value))")
                }
            case "format":
                if argument == "date-time", case .string(let text) = value, !Self.isDateTime(text) {
                    problem("not an RFC 3339 date-time: \(Self.show(value))")
                }
            default:
                if !Self.annotations.contains(keyword) { problem("the reply check does not know the keyword \"\(keyword)\"") }
            }
        }
        if case .object(let members) = value {
            found += memberProblems(members, keywords: keywords, at: pointer)
        }
        return found
    }

    /// `properties` for the members it names, `additionalProperties` for the others.
    private func memberProblems(
        _ members: [String: JSONValue], keywords: [String: JSONValue], at pointer: String
    ) -> [SchemaProblem] {
        var named: [String: JSONValue] = [:]
        if case .object(let properties)? = keywords["properties"] { named = properties }
        var found: [SchemaProblem] = []
        for (name, member) in members.sorted(by: { $0.key < $1.key }) {
            let path = pointer + "/" + Self.escape(name)
            if let schema = named[name] {
                found += problems(member, against: schema, at: path)
            } else if let additional = keywords["additionalProperties"] {
                if additional == .bool(false) {
                    found.append(
                        SchemaProblem(pointer: path, message: "member \"\(name)\" is not allowed here: \(Self.show(member))"))
                } else {
                    found += problems(member, against: additional, at: path)
                }
            }
        }
        return found
    }

    /// oneOf: exactly one branch; anyOf: at least one; allOf: every one. A failed oneOf/anyOf names each branch's
    /// problems, so the message shows how close the value came to each.
    private func combined(_ keyword: String, _ value: JSONValue, branches: JSONValue, at pointer: String) -> [SchemaProblem] {
        guard case .array(let schemas) = branches else {
            return [SchemaProblem(pointer: pointer, message: "\(keyword) is not an array")]
        }
        let outcomes = schemas.map { problems(value, against: $0, at: pointer) }
        if keyword == "allOf" { return outcomes.flatMap { $0 } }
        let passed = outcomes.indices.filter { outcomes[$0].isEmpty }
        if keyword == "oneOf" && passed.count > 1 {
            return [
                SchemaProblem(
                    pointer: pointer,
                    message: "matches \(passed.count) oneOf branches \(passed), one allowed: \(Self.show(value))")
            ]
        }
        if !passed.isEmpty { return [] }
        let reasons = outcomes.enumerated().map { index, problems in
            "[\(index)\(Self.refName(schemas[index]))] " + problems.prefix(3).map(\.description).joined(separator: "; ")
        }
        return [
            SchemaProblem(pointer: pointer, message: "matches none of \(keyword)'s branches: " + reasons.joined(separator: " | "))
        ]
    }

    /// A `#/…` pointer into `root`.
    func resolve(_ reference: String) -> JSONValue? {
        guard reference.hasPrefix("#/") else { return nil }
        var node: JSONValue? = root
        for part in reference.dropFirst(2).split(separator: "/", omittingEmptySubsequences: false) {
            let name = part.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            guard case .object(let members)? = node else { return nil }
            node = members[name]
        }
        return node
    }

    private static func refName(_ schema: JSONValue) -> String {
        guard case .object(let keywords) = schema, let reference = keywords["$ref"]?.stringValue else { return "" }
        return " " + (reference.split(separator: "/").last.map(String.init) ?? reference)
    }

    static func escape(_ name: String) -> String {
        name.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
    }

    private static func strings(_ value: JSONValue) -> [String] {
        switch value {
        case .string(let name): [name]
        case .array(let names): names.compactMap(\.stringValue)
        default: []
        }
    }

    private static func number(_ value: JSONValue) -> Double? {
        switch value {
        case .int(let number): Double(number)
        case .double(let number): number
        default: nil
        }
    }

    static func value(_ value: JSONValue, hasType name: String) -> Bool {
        switch (name, value) {
        case ("null", .null), ("boolean", .bool), ("string", .string), ("array", .array), ("object", .object): true
        case ("number", .int), ("number", .double), ("integer", .int): true
        // 2020-12: a number with no fractional part is an integer, however it is written.
        case ("integer", .double(let number)): number.rounded() == number
        default: false
        }
    }

    /// JSON equality, where 1 and 1.0 are the same number.
    static func equal(_ left: JSONValue, _ right: JSONValue) -> Bool {
        switch (left, right) {
        case (.array(let a), .array(let b)): a.count == b.count && zip(a, b).allSatisfy { equal($0, $1) }
        case (.object(let a), .object(let b)):
            a.count == b.count && a.allSatisfy { key, value in b[key].map { equal(value, $0) } ?? false }
        default:
            if let a = number(left), let b = number(right) { a == b } else { left == right }
        }
    }

    /// ECMA-262 patterns are searched for, not anchored (2020-12 §6.3.3); the document's patterns are in the subset
    /// NSRegularExpression reads the same way.
    private static func matches(_ text: String, _ pattern: String) -> Bool {
        guard let expression = try? NSRegularExpression(pattern: pattern) else { return false }
        return expression.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }

    static func isDateTime(_ text: String) -> Bool {
        text.wholeMatch(of: /\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})/) != nil
    }

    /// A value as JSON, cut short when long (a whole record in a message helps nobody).
    static func show(_ value: JSONValue) -> String {
        let text = String(decoding: value.encodedBytes(), as: UTF8.self)
        return text.count > 300 ? text.prefix(300) + "…" : text
    }
}
