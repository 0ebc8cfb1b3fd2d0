import CaptureJSON

/// The flow document Janrain's SDKs download at start-up (`/widget_data/flows/{appId}/{flow}/{version}/{locale}.json`)
/// and read their form field names from: `version`, and `fields`, where each field is keyed by its input name
/// (`type`, `label`, `schemaId`: the record attribute it writes) and each form is an entry of type `form` listing
/// its fields in order. Built from the same Settings the pages render and the service validates with.
extension FlowCatalog {
    /// The input types the SDKs know; `date` stays `date` (the SDKs split `dateselect` fields into parts).
    static func sdkType(of field: FieldDefinition) -> String {
        switch field.type {
        case "email", "password", "date": field.type
        default: "text"
        }
    }

    /// The record attribute a field writes, as the SDKs look it up in the user record; passwords write `password`;
    /// a confirmation, what the field of `form` (formKey) it confirms writes.
    func schemaID(of field: FieldDefinition, inForm form: String) -> String? {
        if field.isPassword { return "password" }
        if let path = field.recordPath { return path.description }
        let confirmed = field.matches.flatMap { other in fields(ofForm: form).first { $0.name == other } }
        return confirmed.flatMap { schemaID(of: $0, inForm: form) }
    }

    /// Labels in the language of `locale` (the URL's), through the catalogs' fallbacks.
    public func document(for flow: FlowDefinition, locale: String) -> JSONValue {
        let messages = localization.messages(for: Localization.isLanguageTag(locale) ? locale : nil)
        var entries: [String: JSONValue] = [:]
        for form in flow.forms {
            let key = formKey(form, in: flow)
            let formFields = fields(ofForm: key)
            entries[form] = [
                "type": "form", "name": .string(form), "fields": .array(formFields.map { .string($0.name) }),
            ]
            for field in formFields {
                var entry: [String: JSONValue] = [
                    "type": .string(Self.sdkType(of: field)), "name": .string(field.name),
                    "label": .string(label(of: field, inForm: "", messages: messages)),
                    "required": .bool(field.isRequired),
                ]
                if let schemaID = schemaID(of: field, inForm: key) { entry["schemaId"] = .string(schemaID) }
                entries[field.name] = .object(entry)
            }
        }
        return [
            "version": .string(flow.flowVersion), "flow": .string(flow.name), "locale": .string(locale),
            "fields": .object(entries),
        ]
    }
}
