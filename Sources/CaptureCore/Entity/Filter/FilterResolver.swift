import Foundation

/// Turns a parsed filter into an `EntityFilter`: each path into a field (a record column, or a scalar profile
/// attribute outside any plural), each value into the field's kind as storage keeps it.
struct FilterResolver {
    let schema: EntitySchema

    func resolve(_ syntax: FilterSyntax) throws(CaptureError) -> EntityFilter {
        switch syntax {
        case .or(let terms): return .any(try terms.map { (term) throws(CaptureError) in try resolve(term) })
        case .and(let terms): return .all(try terms.map { (term) throws(CaptureError) in try resolve(term) })
        case .not(let inner): return .not(try resolve(inner))
        case .isNull(let path, let position, let negated):
            let null = EntityFilter.isNull(try field(path, at: position, argument: "filter"))
            return negated ? .not(null) : null
        case .compare(let path, let position, let comparison, let literal, let valuePosition):
            let field = try field(path, at: position, argument: "filter")
            return try comparisonFilter(field, comparison, literal, at: valuePosition)
        }
    }

    /// The field `path` names. An attribute the schema lacks is Janrain's 223; an object, a plural, a value inside a
    /// plural, or a service attribute that is not a column (`password`, `profiles`) is refused with a 200.
    func field(_ path: String, at position: Int?, argument: String) throws(CaptureError) -> FilterField {
        func refuse(_ problem: String) -> CaptureError {
            position.map { EntityFilter.error(problem, at: $0) } ?? .invalidArgument(argument, problem)
        }
        if let column = RecordField(rawValue: path) { return .record(column) }
        let names = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard names.count <= EntitySchema.maxDepth, names.allSatisfy(ProfileField.isPlainName) else {
            throw refuse("'\(path)' is not an attribute path (like gender or primaryAddress.city)")
        }
        if names.count == 1 && EntitySchema.systemAttributes.contains(path) {
            throw refuse("'\(path)' cannot be filtered or sorted on")
        }
        var scope = schema.attributes
        var walked: [String] = []
        var definition: AttributeDefinition?
        for name in names {
            walked.append(name)
            guard let found = scope[name] else {
                let named = walked.joined(separator: ".")
                let at = position.map { " (at position \($0))" } ?? ""
                throw .schemaViolation(
                    SchemaViolation(
                        .unknownAttribute, named, "\(argument): '\(named)' is not an attribute of the user record\(at)"))
            }
            if found.type == .plural {
                throw refuse("'\(walked.joined(separator: "."))' is a plural: its values cannot be filtered or sorted on")
            }
            definition = found
            scope = found.attributes
        }
        guard let definition, definition.type.isScalar else {
            throw refuse(
                "'\(path)' is an object: compare one of its attributes (like \(path).\(scope.keys.sorted().first ?? "name"))")
        }
        let kind: FilterValueKind
        switch definition.type {
        case .string, .email, .date, .dateTime: kind = .text
        case .integer, .decimal: kind = .number
        case .boolean: kind = .boolean
        case .object, .plural: throw refuse("'\(path)' cannot be compared")
        }
        guard let field = ProfileField(names: names, kind: kind) else { throw refuse("'\(path)' is not an attribute path") }
        return .profile(field)
    }

    /// The definition behind a profile field (its `date`, `dateTime` or `email` type decides how text is read).
    private func definition(_ field: ProfileField) -> AttributeDefinition? {
        var scope = schema.attributes
        var found: AttributeDefinition?
        for name in field.names {
            found = scope[name]
            scope = found?.attributes ?? [:]
        }
        return found
    }

    private func comparisonFilter(
        _ field: FilterField, _ comparison: FilterComparison, _ literal: FilterSyntax.Literal, at position: Int
    ) throws(CaptureError) -> EntityFilter {
        func refuse(_ problem: String) -> CaptureError { EntityFilter.error(problem, at: position) }
        let path = field.path
        switch field.kind {
        case .boolean:
            guard !comparison.orders else { throw refuse("\(path) is true or false: compare it with = or !=") }
            let value: Bool
            switch literal {
            case .boolean(let bool): value = bool
            case .string(let text) where ["true", "false"].contains(text.lowercased()): value = text.lowercased() == "true"
            default: throw refuse("\(path) is true or false")
            }
            return .compare(field, comparison, .boolean(value))
        case .number:
            let text: String
            switch literal {
            case .number(let number): text = number
            case .string(let quoted): text = quoted.trimmingCharacters(in: .whitespaces)
            case .boolean: throw refuse("\(path) is a number")
            }
            return .compare(field, comparison, try Self.number(text, of: path, refuse: refuse))
        case .instant:
            guard case .string(let text) = literal, let date = Self.instant(text) else {
                throw refuse("\(path) is a date and time: give one in quotes, like '2016-05-01 00:00:00 +0000'")
            }
            return .compare(field, comparison, .instant(date))
        case .text:
            let text: String
            switch literal {
            case .string(let quoted): text = quoted
            case .number(let number): text = number
            case .boolean: throw refuse("\(path) is text: put the value in single quotes")
            }
            guard case .profile(let profile) = field, let definition = definition(profile) else {
                // uuid, email.
                return .compare(field, comparison, .text(field == .record(.email) ? User.normalize(email: text) : text))
            }
            switch definition.type {
            case .email: return .compare(field, comparison, .text(User.normalize(email: text)))
            case .date: return try Self.dayFilter(field, comparison, text, refuse: refuse)
            case .dateTime:
                guard let date = Self.instant(text) else {
                    throw refuse("\(path) is a date and time, like '2016-05-01 00:00:00 +0000'")
                }
                return .compare(field, comparison, .text(CaptureDate.format(date)))
            default: return .compare(field, comparison, .text(text))
            }
        }
    }

    /// An integer when it is one that fits, else a finite decimal.
    static func number(
        _ text: String, of path: String, refuse: (String) -> CaptureError
    ) throws(CaptureError) -> FilterValue {
        if let integer = Int64(text.hasPrefix("+") ? String(text.dropFirst()) : text) { return .integer(integer) }
        guard text.utf8.count <= 64, text.utf8.allSatisfy({ Self.numberBytes.contains($0) }), let double = Double(text)
        else { throw refuse("\(path) is a number: '\(text.prefix(40))' is not one") }
        guard double.isFinite else { throw refuse("the number '\(text.prefix(40))' is out of range") }
        return .decimal(double)
    }

    private static let numberBytes = Set("0123456789+-.eE".utf8)

    /// A date and time as a filter may write it: Janrain's (`2016-05-01 00:00:00 +0000`, with a fraction or not),
    /// ISO 8601, without a zone (UTC), or a day alone (its midnight, UTC).
    static func instant(_ text: String) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let date = CaptureDate.parse(trimmed) { return date }
        if AttributeDefinition.isCalendarDate(trimmed) { return CaptureDate.parse(trimmed + " 00:00:00 +0000") }
        return CaptureDate.parse(trimmed + " +0000")
    }

    /// A `date` attribute (a day, `yyyy-MM-dd`) compared with a day, or with a time: the day then stands for its
    /// midnight (UTC), so `birthday > '2012-06-13 18:02:56 +0000'` finds birthdays from 2012-06-14.
    static func dayFilter(
        _ field: FilterField, _ comparison: FilterComparison, _ text: String, refuse: (String) -> CaptureError
    ) throws(CaptureError) -> EntityFilter {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if AttributeDefinition.isCalendarDate(trimmed) { return .compare(field, comparison, .text(trimmed)) }
        guard let date = instant(trimmed) else {
            throw refuse("\(field.path) is a date: give one in quotes, like '1990-01-31'")
        }
        let day = CaptureDate.day(date)
        let midnight = date.timeIntervalSince1970.truncatingRemainder(dividingBy: 86_400) == 0
        if midnight { return .compare(field, comparison, .text(day)) }
        // The time lies inside `day`, after its midnight.
        switch comparison {
        case .equal: return .never
        case .notEqual: return .not(.isNull(field))
        case .greater, .greaterOrEqual: return .compare(field, .greater, .text(day))
        case .less, .lessOrEqual: return .compare(field, .lessOrEqual, .text(day))
        }
    }
}
