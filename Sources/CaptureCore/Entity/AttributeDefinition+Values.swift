import CaptureJSON
import Foundation

extension AttributeDefinition {
    /// A scalar written through the API or a form, checked against this definition and normalised to what is
    /// stored: text trimmed (an empty one clears), emails lower-cased, dates validated, date-times in Janrain's
    /// format. `nil` means the attribute is cleared.
    func checkedScalar(_ value: JSONValue, at path: String) throws(SchemaViolation) -> JSONValue? {
        if value == .null { return nil }
        switch type {
        case .string, .email:
            guard case .string(let raw) = value else { throw typeError(path, "a string") }
            let text = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            if text.isEmpty { return nil }
            try checkText(text, at: path)
            return .string(type == .email ? text.lowercased() : text)
        case .boolean:
            guard case .bool = value else { throw typeError(path, "true or false") }
            return value
        case .integer:
            let number: Int64
            switch value {
            case .int(let int): number = int
            case .double(let double) where double.rounded() == double && abs(double) < 9e15: number = Int64(double)
            default: throw typeError(path, "a whole number")
            }
            try checkRange(Double(number), at: path)
            return .int(number)
        case .decimal:
            let number: Double
            switch value {
            case .int(let int): number = Double(int)
            case .double(let double) where double.isFinite: number = double
            default: throw typeError(path, "a number")
            }
            try checkRange(number, at: path)
            return value
        case .date:
            guard case .string(let text) = value else { throw typeError(path, "a date string, yyyy-MM-dd") }
            guard Self.isCalendarDate(text) else {
                throw SchemaViolation(.invalidDateTime, path, "\(path) must be a date, yyyy-MM-dd")
            }
            return value
        case .dateTime:
            guard case .string(let text) = value, let date = CaptureDate.parse(text) else {
                throw SchemaViolation(
                    .invalidDateTime, path,
                    "\(path) must be a date and time, like 2024-05-01 12:30:00 +0000 or 2024-05-01T12:30:00Z")
            }
            return .string(CaptureDate.format(date))
        case .object, .plural:
            throw typeError(path, type == .object ? "an object" : "a list of objects")
        }
    }

    /// What a form's text means for this attribute (forms post text; the schema decides the type).
    public func value(fromForm text: String) -> JSONValue {
        if text.isEmpty { return .null }
        switch type {
        case .boolean:
            switch text.lowercased() {
            case "true", "on", "1", "yes": return .bool(true)
            case "false", "off", "0", "no": return .bool(false)
            default: return .string(text)
            }
        case .integer: return Int64(text).map(JSONValue.int) ?? .string(text)
        case .decimal: return Double(text).map(JSONValue.double) ?? .string(text)
        default: return .string(text)
        }
    }

    private func checkText(_ text: String, at path: String) throws(SchemaViolation) {
        // Bytes first: O(1), and it bounds every check after it.
        if text.utf8.count > byteLimit { throw SchemaViolation(.length, path, "\(path) is longer than \(byteLimit) bytes") }
        if let length, text.count > length {
            throw SchemaViolation(.length, path, "\(path) must be at most \(length) characters")
        }
        if let minLength, text.count < minLength {
            throw SchemaViolation(.length, path, "\(path) must be at least \(minLength) characters")
        }
        if text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw SchemaViolation(.invalidDataFormat, path, "\(path) contains control characters")
        }
        if type == .email && !FieldRules.matches(.email, text) {
            throw SchemaViolation(.invalidDataFormat, path, "\(path) must be an email address")
        }
        if let format, !FieldRules.matches(format, text) {
            throw SchemaViolation(.invalidDataFormat, path, "\(path) is not a valid \(format.rawValue)")
        }
        if let pattern, text.range(of: "^(?:\(pattern))$", options: .regularExpression) == nil {
            throw SchemaViolation(.invalidDataFormat, path, "\(path) does not have the required form")
        }
    }

    private func checkRange(_ number: Double, at path: String) throws(SchemaViolation) {
        if let minimum, number < minimum { throw SchemaViolation(.constraint, path, "\(path) must be at least \(minimum)") }
        if let maximum, number > maximum { throw SchemaViolation(.constraint, path, "\(path) must be at most \(maximum)") }
    }

    func typeError(_ path: String, _ expected: String) -> SchemaViolation {
        SchemaViolation(.invalidJSONType, path, "\(path) must be \(expected)")
    }

    /// `yyyy-MM-dd` naming a day that exists (1 ≤ year ≤ 9999).
    static func isCalendarDate(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 10, bytes[4] == 45, bytes[7] == 45 else { return false }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in bytes[range] {
                guard byte >= 48 && byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), year >= 1,
            (1...12).contains(month), day >= 1
        else { return false }
        let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        return day <= days
    }
}
