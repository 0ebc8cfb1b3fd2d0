import Foundation

/// Every field, form and flow from Settings, parsed once; the widget renders from it and the server validates with it.
public struct FlowCatalog: Sendable, Equatable {
    public var fields: [String: FieldDefinition]
    public var forms: [String: [String]]
    public var flows: [String: FlowDefinition]
    /// Per-form labels that differ from the field's own (a change-password form has two "Password" fields).
    public var labels: [String: [String: String]]

    public init(
        fields: [String: FieldDefinition], forms: [String: [String]], flows: [String: FlowDefinition],
        labels: [String: [String: String]] = [:]
    ) {
        self.fields = fields
        self.forms = forms
        self.flows = flows
        self.labels = labels
    }

    /// What `field` is called in `form`.
    public func label(of field: FieldDefinition, inForm form: String) -> String {
        labels[form]?[field.name] ?? field.label
    }

    public func flow(named name: String) -> FlowDefinition? { flows[name] }

    public func fields(ofForm form: String) -> [FieldDefinition] {
        (forms[form] ?? []).compactMap { fields[$0] }
    }
}

/// The on-disk shape of `forms.json`.
struct FormsFile: Decodable {
    var fields: [String: FieldDefinition]
    var forms: [String: [String]]
    var labels: [String: [String: String]]?
}

extension FlowCatalog {
    /// Loads `forms.json` and every `flows/*.json` under the settings directory, and cross-checks them.
    public static func load(directory: URL) throws -> FlowCatalog {
        let formsURL = directory.appendingPathComponent("forms.json")
        let formsFile = try SettingsDecoding.decode(FormsFile.self, from: formsURL)
        var fields: [String: FieldDefinition] = [:]
        for (name, var field) in formsFile.fields {
            field.name = name
            fields[name] = field
            if let attribute = field.attribute, ProfileAttribute(rawValue: attribute) == nil,
                !["password", "currentPassword"].contains(attribute)
            {
                throw SettingsError(file: formsURL.path, key: "fields.\(name).attribute", problem: "unknown attribute '\(attribute)'")
            }
        }
        for (form, names) in formsFile.forms {
            for name in names where fields[name] == nil {
                throw SettingsError(file: formsURL.path, key: "forms.\(form)", problem: "names undefined field '\(name)'")
            }
            for field in names.compactMap({ fields[$0] }) {
                if let other = field.matches, !names.contains(other) {
                    throw SettingsError(
                        file: formsURL.path, key: "fields.\(field.name).matches",
                        problem: "field '\(other)' is not in form '\(form)'")
                }
            }
        }
        for (form, overrides) in formsFile.labels ?? [:] {
            for name in overrides.keys where formsFile.forms[form]?.contains(name) != true {
                throw SettingsError(file: formsURL.path, key: "labels.\(form).\(name)", problem: "'\(name)' is not a field of form '\(form)'")
            }
        }
        let flowsDirectory = directory.appendingPathComponent("flows")
        let files = (try? FileManager.default.contentsOfDirectory(atPath: flowsDirectory.path)) ?? []
        var flows: [String: FlowDefinition] = [:]
        for file in files.sorted() where file.hasSuffix(".json") {
            let url = flowsDirectory.appendingPathComponent(file)
            var flow = try SettingsDecoding.decode(FlowDefinition.self, from: url)
            flow.name = String(file.dropLast(".json".count))
            for form in flow.forms where formsFile.forms[form] == nil {
                throw SettingsError(file: url.path, key: "forms", problem: "names undefined form '\(form)'")
            }
            guard ClientRules.responseTypes.contains(flow.responseType) else {
                throw SettingsError(file: url.path, key: "responseType", problem: "must be token, code or code_and_token")
            }
            flows[flow.name] = flow
        }
        guard !flows.isEmpty else {
            throw SettingsError(file: flowsDirectory.path, key: "(directory)", problem: "holds no flow definitions (*.json)")
        }
        return FlowCatalog(fields: fields, forms: formsFile.forms, flows: flows, labels: formsFile.labels ?? [:])
    }
}
