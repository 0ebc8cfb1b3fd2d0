import CaptureJSON

/// The flow as a customer's Janrain page renders it (`GET /flows/{flow}/widget.json`, read by capture-jtl.js): the
/// screens to look for, each field's element, type, label, rules and record path, each form's fields (and the labels
/// a form gives them, and the service's form a Janrain form is sent as), Janrain's older field names, and the standard
/// buttons, all in the page's language. Built from the same Settings the
/// service validates with, so the page and the service agree on every field.
extension FlowCatalog {
    /// `fallbackFor`: the flow name the page asked for when `flow` is the Janrain fallback serving it.
    public func widgetFlow(_ flow: FlowDefinition, messages: Messages, fallbackFor: String? = nil) -> JSONValue {
        var fieldEntries: [String: JSONValue] = [:]
        var formEntries: [String: JSONValue] = [:]
        for form in flow.forms {
            let key = formKey(form, in: flow)
            let formFields = fields(ofForm: key)
            var formLabels: [String: JSONValue] = [:]
            for field in formFields {
                let general = label(of: field, inForm: "", messages: messages)
                fieldEntries[field.name] = widgetField(field, inForm: key, label: general, messages: messages)
                let own = label(of: field, inForm: key, messages: messages)
                if own != general { formLabels[field.name] = .string(own) }
            }
            var entry: [String: JSONValue] = [
                "fields": .array(formFields.map { .string($0.name) }), "labels": .object(formLabels),
            ]
            if let next = flow.imported?.next?[form] { entry["next"] = next }
            formEntries[form] = .object(entry)
        }
        let meanings = flow.forms.reduce(into: [String: JanrainForm]()) { meanings, form in
            meanings[form] = meaning(ofForm: form, in: flow)
        }
        for (form, meaning) in meanings {
            if let done = meaning.done, case .object(var entry)? = formEntries[form] {
                entry["done"] = .string(done)
                formEntries[form] = .object(entry)
            }
        }
        // The flow's form that `role` is sent as: the form of that name when it has that meaning, else the first that
        // has it (an imported flow's changePasswordFormNoAuth for the service's resetPasswordForm).
        func form(withRole role: String) -> String? {
            meanings[role]?.role == role ? role : meanings.keys.sorted().first { meanings[$0]?.role == role }
        }
        let ownForms = formEntries
        // Janrain's forms the flow does not define with Janrain's meaning, sent as the flow's form that has it: a
        // built-in flow's page names Janrain's forms, and an imported flow lacking one still has the call behind it.
        for (name, janrain) in JanrainForm.table where janrain.role != name && meanings[name] != janrain {
            if flow.isImported && ownForms[name] != nil { continue }
            guard let sentAs = form(withRole: janrain.role), case .object(var entry)? = ownForms[sentAs] else { continue }
            entry["sentAs"] = .string(sentAs)
            if let done = janrain.done { entry["done"] = .string(done) }
            if let linked = janrain.withLinkCode.flatMap(form(withRole:)) { entry["withLinkCode"] = .string(linked) }
            formEntries[name] = .object(entry)
        }
        for (name, key) in JanrainStandard.buttons {
            fieldEntries[name] = ["element": "button", "type": "submit", "label": .string(messages.text(key))]
        }
        for (name, (screen, key)) in JanrainStandard.screenButtons {
            fieldEntries[name] = [
                "element": "button", "type": "button", "screen": .string(screen), "label": .string(messages.text(key)),
            ]
        }
        for (name, label) in flow.imported?.buttons ?? [:] {
            let own = messages.optionalText(ImportedFlow.buttonLabelKey(name)) ?? label
            fieldEntries[name] = ["element": "button", "type": "submit", "label": .string(own)]
        }
        for (name, path) in JanrainStandard.dataTags {
            fieldEntries[name] = ["element": "data", "type": "string", "schemaId": .string(path)]
        }
        let screens = Set(JanrainStandard.screens).union(flow.imported?.screens ?? []).sorted()
        var entries: [String: JSONValue] = [
            "name": .string(flow.name), "version": .string(flow.flowVersion),
            "defaultScreen": .string(flow.imported?.defaultScreen ?? JanrainStandard.defaultScreen),
            "screens": .array(screens.map(JSONValue.string)),
            "fields": .object(fieldEntries), "forms": .object(formEntries),
            "translations": .object(
                (flow.imported?.translations(for: messages.tag, fallback: flow.locale) ?? [:]).mapValues(JSONValue.string)),
            "fieldAliases": .object(JanrainStandard.fieldAliases.mapValues(JSONValue.string)),
            "sessionScreens": .array(JanrainStandard.sessionScreens.map(JSONValue.string)),
        ]
        if let fallbackFor { entries["fallbackFor"] = .string(fallbackFor) }
        return .object(entries)
    }

    private func widgetField(_ field: FieldDefinition, inForm form: String, label: String, messages: Messages) -> JSONValue {
        var entry: [String: JSONValue] = [
            "element": .string(field.element ?? "input"), "type": .string(field.type), "label": .string(label),
            "required": .bool(field.isRequired), "validation": .array(widgetRules(field, inForm: form, messages: messages)),
        ]
        if let autocomplete = field.autocomplete { entry["autocomplete"] = .string(autocomplete) }
        if let maxLength = field.maxLength { entry["maxLength"] = .int(Int64(maxLength)) }
        if let schemaID = schemaID(of: field, inForm: form) { entry["schemaId"] = .string(schemaID) }
        if let placeholder = placeholder(of: field, messages: messages) { entry["placeholder"] = .string(placeholder) }
        if let tip = tip(of: field, messages: messages) { entry["tip"] = .string(tip) }
        if let options = options(of: field, messages: messages) {
            entry["options"] = .array(options.map { ["value": .string($0.value), "label": .string($0.label)] })
        }
        return .object(entry)
    }

    /// The rules a page may check before sending, in Janrain's shape (`rule`, `value`, `message`), each with the
    /// message the service itself would answer. The service checks every rule again (`validate`); the page's
    /// checks are never stricter than the service's (an address only needs an `@` with text on both sides there).
    private func widgetRules(_ field: FieldDefinition, inForm form: String, messages: Messages) -> [JSONValue] {
        statedRules(of: field, inForm: form, messages: messages)
            .filter { $0.name != "format" || $0.value == "email" }
            .map { ["rule": .string($0.name), "value": $0.value, "message": .string($0.message)] }
    }
}
