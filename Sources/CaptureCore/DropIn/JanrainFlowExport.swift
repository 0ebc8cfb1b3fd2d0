import CaptureJSON

/// A flow of this service as a Janrain flow document (`capturectl flows export`), in the shape JanrainFlowImport
/// reads: every field of its forms with its element, type, schema path, options and rules, each text a translation
/// key (`<field>.label`, `<field>.<rule>`, `<field>.option.<n>`) with its text in every locale the flow speaks.
public enum JanrainFlowExport {
    public static func document(of flow: FlowDefinition, catalog: FlowCatalog) -> JSONValue {
        let tags: [String] =
            flow.imported.map { imported in
                Array(Set([flow.locale]).union(imported.texts.keys).union(imported.translations.keys)).sorted()
            } ?? catalog.localization.tags
        var translations: [String: [String: JSONValue]] = [:]
        for tag in tags {
            translations[tag] = (flow.imported?.translations[tag] ?? [:]).mapValues(JSONValue.string)
        }
        var fields: [String: JSONValue] = [:]
        var forms: [String: JSONValue] = [:]
        for form in flow.forms.sorted() {
            let key = catalog.formKey(form, in: flow)
            let formFields = catalog.fields(ofForm: key)
            let listed = flow.imported?.layout?[form] ?? formFields.map(\.name)
            var formEntry: [String: JSONValue] = flow.imported?.keptInForms?[form] ?? [:]
            formEntry["fields"] = .array(listed.map(JSONValue.string))
            if let next = flow.imported?.next?[form] { formEntry["next"] = next }
            // Under Janrain's name for what it does: the service's resetPasswordForm is Janrain's
            // changePasswordFormNoAuth.
            let meaning = JanrainForm.meaning(of: form, fields: formFields)
            forms[meaning?.janrainName ?? form] = .object(formEntry)
            // Janrain's standard flow asks for the address again when a link's code was refused (resetPasswordForm on
            // resetPasswordRequestCode); a built-in flow serves that with its forgotPasswordForm (what widget.json
            // sends it as), so its document names both. A flow's own resetPasswordForm of that meaning comes later
            // in order and stands.
            if !flow.isImported, let requestCode = JanrainForm.table["resetPasswordForm"], form == requestCode.role {
                forms[requestCode.name] = .object(formEntry)
            }
            for field in formFields where fields[field.name] == nil {
                fields[field.name] = entry(
                    field, inForm: key, catalog: catalog, messages: messages(for: flow.locale, flow: flow, catalog: catalog))
                for tag in tags {
                    let messages = messages(for: tag, flow: flow, catalog: catalog)
                    for (textKey, text) in texts(of: field, inForm: key, catalog: catalog, messages: messages) {
                        translations[tag, default: [:]][textKey] = .string(text)
                    }
                }
            }
        }
        for (name, label) in flow.imported?.buttons ?? [:] {
            fields[name] = ["element": "button", "type": "submit", "label": .string("\(name).label")]
            for tag in tags {
                let own = messages(for: tag, flow: flow, catalog: catalog).optionalText(ImportedFlow.buttonLabelKey(name))
                translations[tag, default: [:]]["\(name).label"] = .string(own ?? label)
            }
        }
        var document = flow.imported?.kept ?? [:]
        document.merge([
            "name": .string(flow.imported == nil ? flow.name : flow.title), "version": .string(flow.flowVersion),
            "defaultScreen": .string(flow.imported?.defaultScreen ?? JanrainStandard.defaultScreen),
            "screens": .array((flow.imported?.screens ?? JanrainStandard.screens).map(JSONValue.string)),
            "fields": .object(fields), "forms": .object(forms), "translations": .object(translations.mapValues(JSONValue.object)),
        ]) { _, read in read }
        return .object(document)
    }

    static func messages(for tag: String, flow: FlowDefinition, catalog: FlowCatalog) -> Messages {
        let general = catalog.localization.messages(for: tag)
        return flow.imported.map { general.overlaid(with: $0.texts(for: tag)) } ?? general
    }

    /// The rules of `field` a Janrain document states (a date's format is its input type there).
    static func rules(
        of field: FieldDefinition, inForm form: String, catalog: FlowCatalog, messages: Messages
    ) -> [StatedRule] {
        catalog.statedRules(of: field, inForm: form, messages: messages).filter { $0.value != "date" || $0.name != "format" }
    }

    static func janrainName(of rule: String) -> String {
        JanrainFlowImport.ruleNames.first { $0.value == rule }?.key ?? rule
    }

    static func entry(_ field: FieldDefinition, inForm form: String, catalog: FlowCatalog, messages: Messages) -> JSONValue {
        let name = field.name
        var entry: [String: JSONValue] = ["element": .string(field.element ?? "input"), "label": .string("\(name).label")]
        let stated = rules(of: field, inForm: form, catalog: catalog, messages: messages)
        // A field without rules has no `validation` in Janrain's documents.
        if !stated.isEmpty {
            entry["validation"] = .array(
                stated.map {
                    ["rule": .string(janrainName(of: $0.name)), "value": $0.value, "message": .string("\(name).\($0.name)")]
                })
        }
        // An input's type; Janrain's select, radio and textarea are their element alone.
        if field.element == nil { entry["type"] = .string(field.type) }
        if let schemaID = catalog.schemaID(of: field, inForm: form) { entry["schemaId"] = .string(schemaID) }
        if field.placeholder != nil { entry["placeholder"] = .string("\(name).placeholder") }
        if field.tip != nil { entry["tip"] = .string("\(name).tip") }
        if field.type == "hidden", let value = field.options?.first?.value {
            entry["value"] = .string(value)
        } else if let options = field.options {
            entry["options"] = .array(
                options.enumerated().map { ["value": .string($1.value), "text": .string("\(name).option.\($0)")] })
        }
        return .object(entry)
    }

    /// The texts of `field` in the language of `messages`, under the keys `entry` names.
    static func texts(
        of field: FieldDefinition, inForm form: String, catalog: FlowCatalog, messages: Messages
    ) -> [String: String] {
        let name = field.name
        var texts = ["\(name).label": catalog.label(of: field, inForm: "", messages: messages)]
        for rule in rules(of: field, inForm: form, catalog: catalog, messages: messages) {
            texts["\(name).\(rule.name)"] = rule.message
        }
        if let placeholder = catalog.placeholder(of: field, messages: messages) { texts["\(name).placeholder"] = placeholder }
        if let tip = catalog.tip(of: field, messages: messages) { texts["\(name).tip"] = tip }
        for (index, option) in (field.type == "hidden" ? [] : catalog.options(of: field, messages: messages) ?? []).enumerated() {
            texts["\(name).option.\(index)"] = option.label
        }
        return texts
    }
}
