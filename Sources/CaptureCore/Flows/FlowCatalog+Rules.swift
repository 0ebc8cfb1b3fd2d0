import CaptureJSON

/// One rule of a field as others are told it: the service's name (`required`, `minLength`, `maxLength`, `format`,
/// `matches`), its value, and the message the service answers when it fails.
public struct StatedRule: Sendable, Equatable {
    public var name: String
    public var value: JSONValue
    public var message: String
}

extension FlowCatalog {
    /// The rules of `field` in form `form` (formKey), each with the message `validate` answers, in the language of
    /// `messages`: what the page checks first (widget.json) and what a Janrain flow document states (export).
    func statedRules(of field: FieldDefinition, inForm form: String, messages: Messages) -> [StatedRule] {
        func rule(_ name: String, _ value: JSONValue, _ values: [String: String] = [:]) -> StatedRule {
            StatedRule(
                name: name, value: value, message: message(name, for: field, inForm: "", messages: messages, values: values))
        }
        var rules: [StatedRule] = []
        if field.isRequired { rules.append(rule("required", true)) }
        if let min = field.minLength { rules.append(rule("minLength", .int(Int64(min)), ["count": "\(min)"])) }
        if let max = field.maxLength { rules.append(rule("maxLength", .int(Int64(max)), ["count": "\(max)"])) }
        if let format = field.format { rules.append(rule("format", .string(format.rawValue))) }
        if let other = field.matches, let otherField = fields(ofForm: form).first(where: { $0.name == other }) {
            rules.append(rule("matches", .string(other), ["other": label(of: otherField, inForm: "", messages: messages)]))
        }
        return rules
    }
}
