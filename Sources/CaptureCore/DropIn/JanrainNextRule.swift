import CaptureJSON

/// A form's `next` rule from a Janrain flow document, as far as a page follows it after the form's call succeeds
/// (capture-dropin.js): `render` a screen, or `if` the signed-in record's attribute (`compare`) is (`==`) or is not
/// (`!=`) a value (`to`), `then` one rule, `else` another. `sendMail` and `becameUnverified` name what the service
/// already does after its calls (the verification mail, a changed address's proof) and are left out, as is `type`;
/// anything else is refused with the reason.
enum JanrainNextRule {
    static let operators: Set<String> = ["==", "!="]
    static let doneByTheService: Set<String> = ["sendMail", "becameUnverified", "type"]

    /// The rule as pages read it (only what they follow), or why it cannot be followed.
    static func checked(_ rule: JSONValue) -> (rule: JSONValue?, problems: [String]) {
        guard case .object(let steps) = rule else { return (nil, ["a next rule is an object"]) }
        var kept: [String: JSONValue] = [:]
        var problems: [String] = []
        for (key, value) in steps.sorted(by: { $0.key < $1.key }) {
            switch key {
            case "render":
                if case .object(let render) = value, case .string(let screen)? = render["screen"], !screen.isEmpty {
                    kept["render"] = ["screen": .string(screen)]
                } else {
                    problems.append("render names no screen")
                }
            case "if":
                guard case .object(let test) = value, case .string(let attribute)? = test["compare"], !attribute.isEmpty
                else {
                    problems.append("an if compares no record attribute")
                    continue
                }
                let comparison = test["withOperator"].flatMap { if case .string(let op) = $0 { op } else { nil } } ?? "=="
                guard operators.contains(comparison) else {
                    problems.append("the operator '\(comparison)' is not one a page follows (== or !=)")
                    continue
                }
                kept["if"] = ["compare": .string(attribute), "withOperator": .string(comparison), "to": test["to"] ?? .null]
            case "then", "else":
                let (branch, reasons) = checked(value)
                problems += reasons
                if let branch { kept[key] = branch }
            case let other where doneByTheService.contains(other):
                continue
            default:
                problems.append("'\(key)' is not a step a page can follow (render, if/then/else)")
            }
        }
        return (problems.isEmpty ? .object(kept) : nil, problems)
    }
}
