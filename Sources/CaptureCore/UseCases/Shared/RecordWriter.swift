import CaptureJSON

/// Writes form values and consents into a record by the schema, with errors in the form's language.
public struct RecordWriter: Sendable {
    let catalog: FlowCatalog
    let time: any TimeSource
    let audit: AuditTrail
}

extension RecordWriter {
    /// `user`, about to be stored, with its consents stamped for `clientID` (`Consents`), and the choices that
    /// changed, for `recordConsentChanges` once it is stored.
    func stampingConsents(_ user: User, previous: User?, clientID: String) -> (User, [Consents.Change]) {
        Consents.stamped(user, previous: previous, clientID: clientID, at: time.now(), schema: catalog.schema)
    }

    /// An audit row `user.consent_changed` for each choice ("marketing granted", "marketing withdrawn").
    func recordConsentChanges(_ changes: [Consents.Change], of userID: String) async {
        for change in changes {
            let choice = change.granted.map { $0 ? "granted" : "withdrawn" } ?? "cleared"
            await audit.recordSecurityEvent("user.consent_changed", target: userID, detail: "\(change.consent) \(choice)")
        }
    }
}

extension RecordWriter {
    /// Writes a validated form's values into the user's record through the schema, in one change so that the
    /// record is checked whole; a value the schema refuses is reported on the field that sent it (390).
    func write(form: String, values: [String: String], into user: inout User, messages: Messages) throws {
        // An unticked box is a choice (false), not a cleared attribute.
        let texts = catalog.fields(ofForm: form).compactMap { field in
            field.recordPath.flatMap { path in values[field.name].map { (path, field.isCheckbox && $0.isEmpty ? "false" : $0) } }
        }
        do {
            try write(texts: texts, into: &user)
        } catch {
            throw formError(error, form: form, messages: messages)
        }
    }

    /// Writes text values (from a form, or a provider's claims) at their schema paths, as one change.
    func write(texts: [(EntityPath, String)], into user: inout User) throws(CaptureError) {
        var changes: [String: JSONValue] = [:]
        for (path, text) in texts {
            guard let definition = try? catalog.schema.definition(at: path) else { continue }
            changes = Self.setting(definition.value(fromForm: text), at: path.steps.map(\.name)[...], in: changes)
        }
        var document = user.document(schema: catalog.schema, asUser: true)
        try document.update(at: EntityPath(steps: []), with: .object(changes))
        user.apply(document)
    }

    /// A schema refusal of a form's value (also a unique value another record holds) belongs to the field that
    /// sent it: `invalid_form_fields` (390), as the form's own rules report.
    func formError(_ error: CaptureError, form: String, messages: Messages) -> CaptureError {
        guard case .schemaViolation(let violation) = error,
            let field = catalog.fields(ofForm: form).first(where: { $0.recordPath?.description == violation.path })
        else { return error }
        // In the form's language, as the person sees the field (the schema's own text is for the API's callers).
        let key: String
        switch violation.kind {
        case .unique: key = "schema.unique"
        case .required: key = "rule.required"
        case .length: key = "rule.tooLong"
        case .invalidDataFormat, .invalidDateTime, .invalidJSONType: key = "rule.format"
        case .constraint, .unknownAttribute: key = "schema.constraint"
        }
        let label = catalog.label(of: field, inForm: form, messages: messages)
        return .invalidFormFields([field.name: [messages.optionalText(key, ["label": label]) ?? violation.message]])
    }

    private static func setting(
        _ value: JSONValue, at names: ArraySlice<String>, in object: [String: JSONValue]
    )
        -> [String: JSONValue]
    {
        guard let name = names.first else { return object }
        var object = object
        if names.count == 1 {
            object[name] = value
        } else {
            object[name] = .object(setting(value, at: names.dropFirst(), in: object[name]?.objectMembers ?? [:]))
        }
        return object
    }

}
