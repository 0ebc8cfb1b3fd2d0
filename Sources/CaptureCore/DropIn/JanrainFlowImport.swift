import CaptureJSON
import Foundation

/// A Janrain flow document (what Janrain's flow configuration API exported: `fields`, `forms`, `screens`,
/// `translations`, `defaultScreen`, …) made a flow of this service (`capturectl flows import`): its fields with their
/// labels, placeholders, tips, option labels and rule messages in every locale, its forms (with their next-screen
/// rules), screens and buttons. What the service
/// cannot honour is refused, every problem named with its field and the reason; nothing is imported half.
public enum JanrainFlowImport {
    /// One thing the document asks for that the service cannot do.
    public struct Problem: Sendable, Equatable, CustomStringConvertible {
        public var key: String
        public var reason: String
        public var description: String { "\(key): \(reason)" }
    }

    public struct Refused: Error, Sendable, CustomStringConvertible {
        public var problems: [Problem]
        public var description: String { problems.map(\.description).joined(separator: "\n") }
    }

    /// Elements the widget draws by their own name (the field needs nothing of the document).
    static let drawnByName: Set<String> = ["linkAccounts", "mergeAccounts", "photoManager", "traditionalPasswordChange"]

    /// The flow named `name` from `data` (a Janrain flow document), checked against `schema`.
    public static func flow(named name: String, from data: Data, schema: EntitySchema) throws -> FlowDefinition {
        let document: Document
        do {
            document = try JSONDecoder().decode(Document.self, from: data)
        } catch {
            throw Refused(problems: [Problem(key: "(document)", reason: "not a Janrain flow document: \(error)")])
        }
        var problems: [Problem] = []
        let locales = (document.translations ?? [:]).keys.sorted()
        let locale = locales.contains("en-US") ? "en-US" : (locales.first ?? "en-US")
        let texts = document.translations ?? [:]
        func text(_ key: String?, in tag: String) -> String? {
            key.map { texts[tag]?[$0] ?? texts[locale]?[$0] ?? $0 }
        }
        // The forms whose password is the one typed to prove who one is (a sign-in, deleting the account).
        let provingForms = Set(
            (document.forms ?? [:]).compactMap { name, _ in
                JanrainForm.table[name].map { $0.endpoint == .signIn || $0.needs.contains(.currentPassword) } == true
                    ? name : nil
            })
        var fields: [String: FieldDefinition] = [:]
        var buttons: [String: String] = [:]
        var localeTexts: [String: [String: String]] = [:]
        for (fieldName, source) in (document.fields ?? [:]).sorted(by: { $0.key < $1.key }) {
            let key = "fields.\(fieldName)"
            let proves = (document.forms ?? [:]).contains {
                provingForms.contains($0.key) && $0.value.fields.contains(fieldName)
            }
            switch field(fieldName, source, proves: proves, schema: schema, label: { text($0, in: locale) }) {
            case .field(let field):
                fields[fieldName] = field
                for tag in locales {
                    var own: [String: String] = [:]
                    own["field.\(fieldName).label"] = text(source.label, in: tag)
                    own["field.\(fieldName).placeholder"] = text(source.placeholder, in: tag)
                    own["field.\(fieldName).tip"] = text(source.tip, in: tag)
                    for (index, option) in (source.options ?? []).enumerated() {
                        own["field.\(fieldName).option.\(index)"] = text(option.text ?? option.label, in: tag)
                    }
                    for rule in source.validation ?? [] {
                        if let name = serviceRule(rule.rule), let message = text(rule.message, in: tag) {
                            own["field.\(fieldName).\(name)"] = message
                        }
                    }
                    localeTexts[tag, default: [:]].merge(own) { first, _ in first }
                }
            case .button(let label):
                buttons[fieldName] = label
                // Its label in every locale, as the service keys a button's text (`button.<name>.label`).
                for tag in locales {
                    localeTexts[tag, default: [:]][ImportedFlow.buttonLabelKey(fieldName)] = text(source.label, in: tag)
                }
            case .drawnByName:
                break
            case .refused(let reasons):
                problems += reasons.map { Problem(key: key, reason: $0) }
            }
        }
        var forms: [String: [String]] = [:]
        var next: [String: JSONValue] = [:]
        var layout: [String: [String]] = [:]
        for (formName, form) in (document.forms ?? [:]).sorted(by: { $0.key < $1.key }) {
            guard JanrainForm.table[formName] != nil else {
                problems.append(Problem(key: "forms.\(formName)", reason: "no call of this service sends a form of that name"))
                continue
            }
            let names = form.fields.filter { buttons[$0] == nil && !drawnByName.contains(document.fields?[$0]?.element ?? "") }
            for missing in names where fields[missing] == nil && document.fields?[missing] == nil {
                problems.append(Problem(key: "forms.\(formName)", reason: "names field '\(missing)', which the document lacks"))
            }
            for name in names {
                if let other = fields[name]?.matches, !names.contains(other) {
                    problems.append(
                        Problem(key: "fields.\(name)", reason: "must match '\(other)', which is not in form '\(formName)'"))
                }
            }
            forms[formName] = names
            layout[formName] = form.fields
            // A form that lacks what its call needs could only fail at the person's click: refused here instead.
            let formFields = names.compactMap { fields[$0] }
            if let meaning = JanrainForm.meaning(of: formName, fields: formFields) {
                for need in meaning.unmet(by: formFields) {
                    problems.append(
                        Problem(
                            key: "forms.\(formName)",
                            reason: "lacks \(need.described), which \(meaning.endpoint.path) needs to serve it"))
                }
            }
            if let rule = form.next {
                let (followed, reasons) = JanrainNextRule.checked(rule)
                problems += reasons.map { Problem(key: "forms.\(formName).next", reason: $0) }
                next[formName] = followed
            }
        }
        guard problems.isEmpty else { throw Refused(problems: problems) }
        var imported = ImportedFlow(
            fields: fields, forms: forms, texts: localeTexts, translations: texts, screens: screens(of: document.screens),
            defaultScreen: document.defaultScreen ?? JanrainStandard.defaultScreen, buttons: buttons,
            next: next.isEmpty ? nil : next, layout: layout)
        (imported.kept, imported.keptInForms) = unread(in: data)
        var flow = FlowDefinition(
            page: "", title: document.name ?? name, flowVersion: document.version.flatMap(text(of:)) ?? "1",
            registerFlow: "traditionalRegistration", locale: locale, tokenUrl: "/flows/token-url", responseType: .token,
            forms: forms.keys.sorted())
        flow.name = name
        flow.imported = imported
        return flow
    }

    /// The members of the document, and of its forms, that `Document` does not read: kept for the export.
    static func unread(in data: Data) -> ([String: JSONValue]?, [String: [String: JSONValue]]?) {
        // An operator's file, decoded whole a moment ago: bounded by its size, as the decoder was.
        let limits = JSONParser.Limits(
            maxInputBytes: .max, maxDepth: 64, maxValues: .max, maxStringBytes: .max, maxNumberBytes: 64)
        guard let members = (try? JSONParser.parse(data, limits: limits))?.objectMembers else {
            return (nil, nil)
        }
        let read: Set = ["name", "version", "defaultScreen", "screens", "fields", "forms", "translations"]
        let kept = members.filter { !read.contains($0.key) }
        var inForms: [String: [String: JSONValue]] = [:]
        for (name, form) in members["forms"]?.objectMembers ?? [:] {
            let own = (form.objectMembers ?? [:]).filter { $0.key != "fields" && $0.key != "next" }
            if !own.isEmpty { inForms[name] = own }
        }
        return (kept.isEmpty ? nil : kept, inForms.isEmpty ? nil : inForms)
    }

    enum Converted {
        case field(FieldDefinition), button(String), drawnByName, refused([String])
    }

    /// One field of the document as the service's, or why it cannot be.
    static func field(
        _ name: String, _ source: Field, proves: Bool, schema: EntitySchema, label: (String?) -> String?
    ) -> Converted {
        let element = source.element ?? "input"
        let type = source.type ?? "text"
        if element == "button" || (element == "input" && type == "submit") {
            return .button(label(source.label) ?? name)
        }
        if drawnByName.contains(type) || ["anchor", "div", "data"].contains(element) { return .drawnByName }
        var reasons: [String] = []
        var field = FieldDefinition(label: label(source.label) ?? name, type: "text")
        field.placeholder = label(source.placeholder)
        field.tip = label(source.tip)
        switch (element, type) {
        case ("input", "text"), ("input", "email"), ("input", "password"), ("input", "tel"), ("input", "checkbox"):
            field.type = type
        case ("input", "date"), ("capture", "dateselect"):
            field.type = "date"
            field.format = .date
        case ("textarea", _):
            field.element = "textarea"
        case ("select", _), ("radio", _), ("input", "radio"):
            field.element = element == "select" ? "select" : "radio"
            field.options = (source.options ?? []).map {
                FieldOption(value: $0.value.flatMap(text(of:)) ?? "", label: label($0.text ?? $0.label) ?? "")
            }
        case ("input", "hidden"):
            // The page sends the flow's value; the service takes no other (its one option).
            field.type = "hidden"
            if let value = source.value.flatMap(text(of:)) {
                field.options = [FieldOption(value: value, label: value)]
            } else {
                reasons.append("a hidden input needs its value")
            }
        default:
            reasons.append("a \(element) of type '\(type)' is not a field this service renders and checks")
        }
        if field.isPassword {
            // bcrypt reads 72 bytes; a sign-in's or a deletion's password is the one typed to prove who one is.
            field.maxBytes = 72
            let current = proves || name.lowercased().contains("current") || name.lowercased().hasPrefix("old")
            field.attribute = current ? "currentPassword" : "password"
        } else if let schemaID = source.schemaId, !schemaID.isEmpty {
            if (try? FlowCatalog.formPath(schemaID, in: schema, file: "", key: "")) == nil {
                reasons.append("schemaId '\(schemaID)' is not a single-valued attribute of Settings/schema.json")
            }
            field.attribute = schemaID
        }
        var messages: [String: String] = [:]
        for rule in source.validation ?? [] {
            let value = rule.value
            switch rule.rule {
            case "required": field.required = value.flatMap(bool(of:)) ?? true
            case "minLength": field.minLength = value.flatMap(int(of:))
            case "maxLength": field.maxLength = value.flatMap(int(of:))
            case "format" where ["email", "phone"].contains(value?.stringValue ?? ""):
                field.format = value?.stringValue == "email" ? .email : .phone
            case "match": field.matches = value?.stringValue
            case "unique" where source.schemaId == "email":
                continue  // every address is unique here
            default:
                reasons.append(
                    "validation rule '\(rule.rule)'\(value.flatMap(text(of:)).map { " (\($0))" } ?? "") is not one this service checks"
                )
                continue
            }
            if let service = serviceRule(rule.rule), let message = label(rule.message) { messages[service] = message }
        }
        field.messages = messages.isEmpty ? nil : messages
        return reasons.isEmpty ? .field(field) : .refused(reasons)
    }

    /// The service's name of a Janrain rule (its messages are keyed so).
    static func serviceRule(_ rule: String) -> String? {
        ruleNames[rule]
    }

    /// Janrain's rule names → the service's.
    static let ruleNames = [
        "required": "required", "minLength": "minLength", "maxLength": "maxLength", "format": "format", "match": "matches",
    ]

    static func screens(of value: JSONValue?) -> [String] {
        switch value {
        case .object(let screens)?: screens.keys.sorted()
        case .array(let screens)?:
            screens.compactMap {
                if case .object(let screen) = $0 { return screen["name"]?.stringValue }
                return $0.stringValue
            }
        default: []
        }
    }

    /// A scalar of the document as text (`"20240105"` and `20240105` alike).
    static func text(of value: JSONValue) -> String? {
        switch value {
        case .string(let text): text
        case .int(let number): String(number)
        case .double(let number): String(number)
        case .bool(let flag): String(flag)
        default: nil
        }
    }

    static func int(of value: JSONValue) -> Int? {
        if case .int(let number) = value { return Int(exactly: number) }
        return text(of: value).flatMap { Int($0) }
    }

    static func bool(of value: JSONValue) -> Bool? {
        if case .bool(let flag) = value { return flag }
        return text(of: value).map { $0 == "true" }
    }

    // MARK: The document, as far as it is read

    struct Document: Decodable {
        var name: String?
        var version: JSONValue?
        var defaultScreen: String?
        var fields: [String: Field]?
        var forms: [String: Form]?
        var screens: JSONValue?
        var translations: [String: [String: String]]?
    }

    struct Field: Decodable {
        var element: String?
        var type: String?
        var label: String?
        var placeholder: String?
        var tip: String?
        var schemaId: String?
        var validation: [Rule]?
        var options: [Option]?
        var value: JSONValue?
    }

    struct Rule: Decodable {
        var rule: String
        var value: JSONValue?
        var message: String?
    }

    struct Option: Decodable {
        var value: JSONValue?
        var text: String?
        var label: String?
    }

    struct Form: Decodable {
        var action: String?
        var fields: [String]
        var next: JSONValue?
    }
}
