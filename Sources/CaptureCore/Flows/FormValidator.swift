import Foundation

extension FlowCatalog {
    /// Validates a submission of `form` against the flow definition: unknown fields are refused,
    /// every rule failure is reported per field (code 390). Returns the cleaned values.
    public func validate(form: String, in flow: FlowDefinition, values: [String: String]) throws(CaptureError) -> [String: String] {
        guard flow.forms.contains(form), let names = forms[form] else {
            throw .invalidArgument("form", "'\(form)' is not a form of flow '\(flow.name)'")
        }
        if let unknown = values.keys.sorted().first(where: { !names.contains($0) }) {
            throw .invalidArgument(unknown, "is not a field of form '\(form)'")
        }
        var cleaned: [String: String] = [:]
        for field in fields(ofForm: form) {
            let raw = values[field.name] ?? ""
            cleaned[field.name] = field.isPassword ? raw : raw.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        var problems: [String: [String]] = [:]
        for field in fields(ofForm: form) {
            if let message = FieldRules.check(field, value: cleaned[field.name] ?? "", in: cleaned, catalog: self) {
                problems[field.name] = [message]
            }
        }
        guard problems.isEmpty else { throw .invalidFormFields(problems) }
        return cleaned
    }
}

/// The individual rules; each returns the message to show, or nil.
enum FieldRules {
    static func check(_ field: FieldDefinition, value: String, in values: [String: String], catalog: FlowCatalog) -> String? {
        if value.isEmpty {
            return field.isRequired ? field.message("required", "\(field.label) is required.") : nil
        }
        // Bytes first: counting them is O(1), and it bounds the work of every check below.
        if value.utf8.count > field.byteLimit {
            return field.message("maxLength", "\(field.label) is too long.")
        }
        if let min = field.minLength, value.count < min {
            return field.message("minLength", "\(field.label) must be at least \(min) characters.")
        }
        if let max = field.maxLength, value.count > max {
            return field.message("maxLength", "\(field.label) must be at most \(max) characters.")
        }
        if value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return field.message("format", "\(field.label) contains characters that are not allowed.")
        }
        if let format = field.format, !matches(format, value) {
            return field.message("format", "Enter a valid \(field.label.lowercased()).")
        }
        if let other = field.matches, values[other] != value {
            let otherLabel = catalog.fields[other]?.label ?? other
            return field.message("matches", "\(field.label) must match \(otherLabel.lowercased()).")
        }
        return nil
    }

    static func matches(_ format: FieldDefinition.Format, _ value: String) -> Bool {
        switch format {
        case .email:
            return value.count <= 254
                && value.range(of: #"^[^@\s]+@[^@\s.]+(\.[^@\s.]+)+$"#, options: .regularExpression) != nil
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
