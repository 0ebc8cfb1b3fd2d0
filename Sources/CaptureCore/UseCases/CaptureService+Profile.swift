extension CaptureService {
    /// `/entity`: the record of the user the access token belongs to.
    public func entity(accessToken: String?) async throws -> User {
        try await authenticate(accessToken: accessToken).0
    }

    /// `/entity.update` from its raw parameters: the access token is checked before the JSON is even parsed, so
    /// a caller without a valid token cannot make the service do more than a hash and one lookup.
    public func updateEntity(accessToken: String?, parameters: [String: String]) async throws -> User {
        let (user, _) = try await authenticate(accessToken: accessToken)
        let update = try EntityUpdateRequest(parameters: parameters)
        return try await write(update.attributes, to: user)
    }

    /// `/entity.update`: writes profile attributes, each checked with the rules of the field that edits it.
    public func updateEntity(accessToken: String?, attributes: [String: JSONValue]) async throws -> User {
        let (user, _) = try await authenticate(accessToken: accessToken)
        return try await write(attributes, to: user)
    }

    private func write(_ attributes: [String: JSONValue], to user: User) async throws -> User {
        var user = user
        guard !attributes.isEmpty else { throw CaptureError.missingArgument("attributes") }
        var problems: [String: [String]] = [:]
        for (key, value) in attributes.sorted(by: { $0.key < $1.key }) {
            guard let attribute = ProfileAttribute(rawValue: key) else {
                throw CaptureError.invalidArgument("attributes", "'\(key)' is not a writable attribute")
            }
            let text: String
            switch value {
            case .string(let string): text = string.trimmingCharacters(in: .whitespacesAndNewlines)
            case .null: text = ""
            default: throw CaptureError.invalidArgument("attributes", "'\(key)' must be a string or null")
            }
            if let problem = catalog.validate(attribute: attribute, value: text) {
                problems[key] = [problem]
            } else if attribute == .email && text.isEmpty {
                problems[key] = ["Email address is required."]
            } else {
                user.set(attribute, to: text)
            }
        }
        guard problems.isEmpty else { throw CaptureError.invalidFormFields(problems) }
        return try await save(user, emailField: "email")
    }

    /// `/oauth/update_profile_native`: the `editProfileForm` of a flow, applied to the token's user.
    public func updateProfile(_ request: FlowRequest) async throws -> User {
        var (user, token) = try await authenticate(accessToken: request.accessToken)
        let context = try await context(of: request)
        guard token.clientID == context.client.clientID else {
            throw CaptureError.notPermitted("this access_token was issued to another client")
        }
        let values = try catalog.validate(form: context.form, in: context.flow, values: request.fields)
        var emailField = "email"
        for field in catalog.fields(ofForm: context.form) {
            guard let attribute = field.profileAttribute, let value = values[field.name] else { continue }
            if attribute == .email { emailField = field.name }
            user.set(attribute, to: value)
        }
        return try await save(user, emailField: emailField)
    }

    private func save(_ user: User, emailField: String) async throws -> User {
        var user = user
        if let other = try await store.users.find(email: user.email), other.id != user.id {
            throw CaptureError.emailAddressInUse(field: emailField)
        }
        user.updatedAt = time.now()
        do {
            try await store.users.update(user)
        } catch CaptureError.emailAddressInUse {
            throw CaptureError.emailAddressInUse(field: emailField)
        }
        return user
    }
}
