import Foundation

extension FlowCatalog {
    /// Validates a submission of `form` against the flow definition: unknown fields are refused,
    /// every rule failure is reported per field (code 390) in the language of `messages`. Returns the cleaned values
    /// (`FieldDefinition.cleaned`), without the boxes the submission left out. `partial`: a change of what exists (a
    /// profile save), where a field the submission leaves out is left as it is, unchecked and unwritten; without it
    /// (a registration, a sign-in) a field left out is empty.
    public func validate(
        form: String, in flow: FlowDefinition, values: [String: String], messages: Messages, partial: Bool = false
    ) throws(CaptureError) -> [String: String] {
        guard isForm(form, of: flow) else {
            throw .invalidArgument("form", "'\(form)' is not a form of flow '\(flow.name)'")
        }
        let names = fields(ofForm: form).map(\.name)
        if let unknown = values.keys.sorted().first(where: { !names.contains($0) }) {
            throw .invalidArgument(unknown, "is not a field of form '\(form)'")
        }
        var cleaned: [String: String] = [:]
        let sent = fields(ofForm: form).filter { !(partial || $0.isCheckbox) || values[$0.name] != nil }
        for field in sent {
            // A box the submission leaves out (an app that does not know it) changes nothing; other fields left out
            // are empty, unless the submission is `partial`.
            cleaned[field.name] = field.cleaned(values[field.name] ?? "")
        }
        var problems: [String: [String]] = [:]
        for field in sent {
            if let (rule, values) = FieldRules.failedRule(field, value: cleaned[field.name] ?? "", in: cleaned) {
                var filled = values
                if let other = field.matches, let otherField = fields(ofForm: form).first(where: { $0.name == other }) {
                    filled["other"] = label(of: otherField, inForm: form, messages: messages)
                }
                problems[field.name] = [message(rule, for: field, inForm: form, messages: messages, values: filled)]
            }
        }
        guard problems.isEmpty else { throw .invalidFormFields(problems) }
        return cleaned
    }
}

/// The individual rules; each returns the rule a value fails (`required`, `minLength`, `maxLength`, `format`,
/// `characters`, `matches`) and the numbers its message may name, or nil.
enum FieldRules {
    static func failedRule(_ field: FieldDefinition, value: String, in values: [String: String]) -> (String, [String: String])? {
        if value.isEmpty {
            return field.isRequired ? ("required", [:]) : nil
        }
        // Bytes first: counting them is O(1), and it bounds the work of every check below.
        if value.utf8.count > field.byteLimit {
            return ("tooLong", [:])
        }
        if let min = field.minLength, value.count < min {
            return ("minLength", ["count": "\(min)"])
        }
        if let max = field.maxLength, value.count > max {
            return ("maxLength", ["count": "\(max)"])
        }
        if value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return ("characters", [:])
        }
        if let format = field.format, !matches(format, value) {
            return ("format", [:])
        }
        if let options = field.options, !options.contains(where: { $0.value == value }) {
            return ("format", [:])
        }
        if let other = field.matches, values[other] != value {
            return ("matches", [:])
        }
        return nil
    }

    static func matches(_ format: FieldDefinition.Format, _ value: String) -> Bool {
        switch format {
        case .email:
            return EmailAddress.isPlain(value)
        case .phone:
            return value.range(of: #"^\+?[0-9][0-9 ().-]{4,19}$"#, options: .regularExpression) != nil
        case .date:
            return isPastDate(value)
        }
    }

    private static func isPastDate(_ value: String) -> Bool {
        guard value.range(of: #"^\d{4}-\d{2}-\d{2}$"#, options: .regularExpression) != nil else { return false }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        formatter.isLenient = false
        guard let date = formatter.date(from: value), formatter.string(from: date) == value else { return false }
        return date < Date() && value >= "1900-01-01"
    }
}
