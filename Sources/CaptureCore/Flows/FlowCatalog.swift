import Foundation

/// Every field, form and flow from Settings, and the entity schema they write into, parsed once and cross-checked;
/// the widget renders from it and the server validates with it.
public struct FlowCatalog: Sendable, Equatable {
    public var schema: EntitySchema
    public var fields: [String: FieldDefinition]
    public var forms: [String: [String]]
    public var flows: [String: FlowDefinition]
    /// Per-form labels that differ from the field's own (a change-password form has two "Password" fields).
    public var labels: [String: [String: String]]
    /// The texts of every locale (`Settings/locales`). The English texts of fields stay in `forms.json`, with the field.
    public var localization: Localization

    public init(
        schema: EntitySchema, fields: [String: FieldDefinition], forms: [String: [String]],
        flows: [String: FlowDefinition], labels: [String: [String: String]] = [:],
        localization: Localization = Localization(catalogs: [])
    ) {
        self.schema = schema
        self.fields = fields
        self.forms = forms
        self.flows = flows
        self.labels = labels
        self.localization = localization
    }

    /// What `field` is called in `form`, in the language of `messages`: the catalogs' `form.<form>.<field>.label`,
    /// then `field.<field>.label`, then forms.json's English.
    public func label(of field: FieldDefinition, inForm form: String, messages: Messages? = nil) -> String {
        messages?.optionalText("form.\(form).\(field.name).label") ?? labels[form]?[field.name]
            ?? messages?.optionalText("field.\(field.name).label") ?? field.label
    }

    /// A field's placeholder, tip and option labels in the language of `messages` (an imported flow's translations,
    /// `field.<field>.placeholder`, `.tip`, `.option.<index>`), else the field's own (its flow's locale).
    public func placeholder(of field: FieldDefinition, messages: Messages) -> String? {
        field.placeholder.map { messages.optionalText("field.\(field.name).placeholder") ?? $0 }
    }

    public func tip(of field: FieldDefinition, messages: Messages) -> String? {
        field.tip.map { messages.optionalText("field.\(field.name).tip") ?? $0 }
    }

    public func options(of field: FieldDefinition, messages: Messages) -> [FieldOption]? {
        field.options?.enumerated().map { index, option in
            FieldOption(value: option.value, label: messages.optionalText("field.\(field.name).option.\(index)") ?? option.label)
        }
    }

    static let ruleFamilies = ["tooLong": "maxLength", "characters": "format"]

    /// The message for a field's failed `rule` in the language of `messages`: the catalogs' `field.<field>.<rule>`,
    /// then forms.json's English, then the catalogs' general `rule.<rule>` (with `{label}`, `{count}`, `{other}`).
    func message(
        _ rule: String, for field: FieldDefinition, inForm form: String, messages: Messages, values: [String: String] = [:]
    ) -> String {
        // A field's own message for `maxLength` / `format` also covers `tooLong` (bytes) / `characters`.
        let own = Self.ruleFamilies[rule] ?? rule
        if let text = messages.optionalText("field.\(field.name).\(own)") ?? field.messages?[own] { return text }
        var filled = values
        filled["label"] = label(of: field, inForm: form, messages: messages)
        return messages.optionalText("rule.\(rule)", filled) ?? "\(filled["label"] ?? field.name): \(rule)"
    }

    /// The flow of that name, else the one that lists it among its `aliases` (Janrain's `standard`, …).
    public func flow(named name: String) -> FlowDefinition? {
        flows[name] ?? flows.values.first { $0.aliases?.contains(name) == true }
    }

    /// The flows with a page of the service's own (not imported ones), by name.
    public var pageFlows: [FlowDefinition] {
        flows.values.filter { !$0.isImported }.sorted { $0.name < $1.name }
    }

    /// The flow whose page stands for `flow` where the service links to a page (a mailed code's link): the flow
    /// itself, or for an imported flow the Janrain fallback, else the first page flow.
    public func pageFlow(for flow: FlowDefinition) -> FlowDefinition {
        flow.isImported ? (janrainFallback ?? pageFlows.first ?? flow) : flow
    }

    /// The flow a customer's page gets for a flow name this service does not have (`janrainFallback`), if any.
    public var janrainFallback: FlowDefinition? {
        flows.values.first { $0.janrainFallback == true }
    }

    /// `form` is found under this key in `forms` (and in a flow context): its own name, or for a flow imported with
    /// fields of its own, `<flow>/<form>`, so two flows may each have their own `registrationForm`.
    public func formKey(_ form: String, in flow: FlowDefinition) -> String {
        flow.isImported ? Self.importedKey(form, of: flow.name) : form
    }

    /// The key of an imported flow's form or field `name`.
    static func importedKey(_ name: String, of flow: String) -> String { "\(flow)/\(name)" }

    /// Whether the form key `key` (formKey) is a form of `flow`.
    public func isForm(_ key: String, of flow: FlowDefinition) -> Bool {
        forms[key] != nil && flow.forms.contains { formKey($0, in: flow) == key }
    }

    /// The fields of the form key `form` (formKey), in order.
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
    /// Loads `schema.json`, `forms.json` and every `flows/*.json` under the settings directory, and cross-checks them.
    public static func load(directory: URL) throws -> FlowCatalog {
        let schema = try EntitySchema.load(from: directory.appendingPathComponent("schema.json"))
        let formsURL = directory.appendingPathComponent("forms.json")
        let formsFile = try SettingsDecoding.decode(FormsFile.self, from: formsURL)
        var fields: [String: FieldDefinition] = [:]
        for (name, var field) in formsFile.fields {
            field.name = name
            if let attribute = field.attribute, !["password", "currentPassword"].contains(attribute) {
                field.recordPath = try formPath(attribute, in: schema, file: formsURL.path, key: "fields.\(name).attribute")
            }
            fields[name] = field
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
                throw SettingsError(
                    file: formsURL.path, key: "labels.\(form).\(name)", problem: "'\(name)' is not a field of form '\(form)'")
            }
        }
        var forms = formsFile.forms
        let flowsDirectory = directory.appendingPathComponent("flows")
        let files = (try? FileManager.default.contentsOfDirectory(atPath: flowsDirectory.path)) ?? []
        var flows: [String: FlowDefinition] = [:]
        for file in files.sorted() where file.hasSuffix(".json") {
            let url = flowsDirectory.appendingPathComponent(file)
            var flow = try SettingsDecoding.decode(FlowDefinition.self, from: url)
            flow.name = String(file.dropLast(".json".count))
            if let imported = flow.imported {
                try Self.addImported(imported, of: flow, file: url.path, schema: schema, fields: &fields, forms: &forms)
            } else if flow.page.isEmpty {
                throw SettingsError(file: url.path, key: "page", problem: "names no page template")
            }
            for form in flow.forms where forms[flow.isImported ? Self.importedKey(form, of: flow.name) : form] == nil {
                throw SettingsError(file: url.path, key: "forms", problem: "names undefined form '\(form)'")
            }
            flows[flow.name] = flow
        }
        var named: [String: String] = [:]
        for flow in flows.values.sorted(by: { $0.name < $1.name }) {
            // An imported flow of that name replaces what the alias stands for.
            for alias in flow.aliases ?? [] where flows[alias]?.isImported != true {
                if let other = flows[alias]?.name ?? named[alias] {
                    throw SettingsError(
                        file: flowsDirectory.appendingPathComponent("\(flow.name).json").path, key: "aliases",
                        problem: "'\(alias)' already names flow '\(other)'")
                }
                named[alias] = flow.name
            }
        }
        let fallbacks = flows.values.filter { $0.janrainFallback == true }.map(\.name).sorted()
        if fallbacks.count > 1 {
            throw SettingsError(
                file: flowsDirectory.appendingPathComponent("\(fallbacks[1]).json").path, key: "janrainFallback",
                problem: "flow '\(fallbacks[0])' is the fallback for Janrain pages already")
        }
        guard !flows.isEmpty else {
            throw SettingsError(file: flowsDirectory.path, key: "(directory)", problem: "holds no flow definitions (*.json)")
        }
        return FlowCatalog(
            schema: schema, fields: fields, forms: forms, flows: flows, labels: formsFile.labels ?? [:],
            localization: try Localization.load(directory: directory.appendingPathComponent("locales")))
    }

    /// An imported flow's fields and forms, under keys of their own (formKey), checked like forms.json's.
    static func addImported(
        _ imported: ImportedFlow, of flow: FlowDefinition, file: String, schema: EntitySchema,
        fields: inout [String: FieldDefinition], forms: inout [String: [String]]
    ) throws {
        for (name, var field) in imported.fields {
            field.name = name
            if let attribute = field.attribute, !["password", "currentPassword"].contains(attribute) {
                field.recordPath = try formPath(attribute, in: schema, file: file, key: "imported.fields.\(name).attribute")
            }
            fields[importedKey(name, of: flow.name)] = field
        }
        for (form, names) in imported.forms {
            for name in names where imported.fields[name] == nil {
                throw SettingsError(file: file, key: "imported.forms.\(form)", problem: "names undefined field '\(name)'")
            }
            for name in names {
                if let other = imported.fields[name]?.matches, !names.contains(other) {
                    throw SettingsError(
                        file: file, key: "imported.fields.\(name).matches", problem: "field '\(other)' is not in form '\(form)'")
                }
            }
            forms[importedKey(form, of: flow.name)] = names.map { importedKey($0, of: flow.name) }
        }
    }

    /// A form field writes one value into the record: a path to a single value of the schema, not inside a plural.
    static func formPath(_ attribute: String, in schema: EntitySchema, file: String, key: String) throws -> EntityPath {
        let problem =
            "'\(attribute)' is not a single-valued attribute of the schema (password, currentPassword, or a path like primaryAddress.city)"
        guard let path = try? EntityPath(parsing: attribute), !path.isRoot,
            path.steps.allSatisfy({ $0.element == nil }), let definition = try? schema.definition(at: path),
            definition.type.isScalar
        else { throw SettingsError(file: file, key: key, problem: problem) }
        var scope = schema.attributes
        for step in path.steps.dropLast() {
            guard let parent = scope[step.name], parent.type == .object else {
                throw SettingsError(file: file, key: key, problem: problem)
            }
            scope = parent.attributes
        }
        return path
    }
}
