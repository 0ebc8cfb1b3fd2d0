import CaptureJSON

extension CaptureService {
    /// `/entity`: the record of the user the access token belongs to.
    public func entity(accessToken: String?) async throws -> User {
        try await authenticate(accessToken: accessToken).0
    }

    /// `/entity`'s `result` as JSON: the whole record, written from the stored profile (`EntityEncoder.write`), or
    /// the one attribute `attributeName` names.
    public func entityResultJSON(accessToken: String?, attributeName: String?) async throws -> [UInt8] {
        let encoder = EntityEncoder(schema: catalog.schema)
        guard let attributeName, !attributeName.isEmpty else {
            let (user, lookup) = try await authenticatedRecord(accessToken: accessToken)
            var output: [UInt8] = []
            output.reserveCapacity(4096)
            encoder.write(
                user, storedProfile: lookup.storedProfile, profiles: lookup.profiles, passkeys: lookup.passkeys, to: &output)
            return output
        }
        return try encoder.attribute(attributeName, of: try await entity(accessToken: accessToken)).encodedBytes()
    }

    /// The record in Janrain's shape, with every attribute of the schema, the linked provider accounts and passkeys.
    public func record(of user: User) async throws -> JSONValue {
        EntityEncoder(schema: catalog.schema).record(
            user, profiles: try await store.identities.list(userID: user.id),
            passkeys: try await store.passkeys.list(userID: user.id))
    }

    /// `/entity.update`, `/entity.replace`, `/entity.delete` from their raw parameters: the access token is checked
    /// before the JSON is even parsed, so a caller without a valid token cannot make the service do more than a
    /// hash and one lookup. Every value is checked against the schema; the user cannot write read-only attributes.
    public func changeEntity(
        _ kind: EntityChangeRequest.Kind, accessToken: String?, parameters: [String: String], remoteAddress: String? = nil
    ) async throws -> User {
        let (user, token) = try await authenticate(accessToken: accessToken)
        let change = try EntityChangeRequest(kind, parameters: parameters)
        var document = user.document(schema: catalog.schema, asUser: true)
        switch (change.kind, change.value) {
        case (.update, let value?): try document.update(at: change.path, with: value)
        case (.replace, let value?): try document.replace(at: change.path, with: value)
        default: try document.delete(at: change.path)
        }
        var changed = user
        changed.apply(document)
        let proof = StepUpProof(parameters, remoteAddress: remoteAddress)
        let password = proof.password.map {
            CurrentPassword(field: "current_password", typed: $0, address: remoteAddress, code: proof.code)
        }
        return try await save(
            changed, previous: user, emailField: "email", token: token, password: password, locale: nil,
            messages: catalog.localization.messages(for: nil))
    }

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

    /// Stores `user` as changed from `previous` (the record `token` was checked against). A changed address needs
    /// the step-up (`requireStepUp`) and the uniqueness lookup, is no longer
    /// verified just because the old one was, and is followed through (`addressChanged`). Consents the save changes
    /// are stamped with the token's client.
    func save(
        _ user: User, previous: User, emailField: String, token: TokenRecord, password: CurrentPassword?,
        flow: FlowDefinition? = nil, locale: String?, messages: Messages
    ) async throws -> User {
        var (user, consents) = stampingConsents(user, previous: previous, clientID: token.clientID)
        let moved = user.email != previous.email
        if moved {
            try await requireStepUp(.changeAddress, of: previous, token: token, password: password, messages: messages)
            if let other = try await store.users.find(email: user.email), other.id != user.id {
                throw CaptureError.emailAddressInUse(field: emailField)
            }
            user.emailVerifiedAt = nil
        }
        user.updatedAt = time.now()
        do {
            try await store.users.update(user)
        } catch CaptureError.emailAddressInUse {
            throw CaptureError.emailAddressInUse(field: emailField)
        }
        await recordConsentChanges(consents, of: user.id)
        if moved { try await addressChanged(from: previous, to: user, token: token, flow: flow, locale: locale) }
        return user
    }
}
