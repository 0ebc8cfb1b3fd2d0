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

    private func write(_ attributes: [String: JSONValue], to previous: User) async throws -> User {
        var user = previous
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
        return try await save(user, previous: previous, emailField: "email")
    }

    /// `/oauth/update_profile_native`: the `editProfileForm` of a flow, applied to the token's user.
    public func updateProfile(_ request: FlowRequest) async throws -> User {
        let (previous, token) = try await authenticate(accessToken: request.accessToken)
        var user = previous
        let context = try await context(of: request)
        guard token.clientID == context.client.clientID else {
            throw CaptureError.notPermitted("this access_token was issued to another client")
        }
        let values = try catalog.validate(form: context.form, in: context.flow, values: request.fields)
        if let newPassword = value(for: "password", form: context.form, in: values) {
            return try await changePassword(
                of: user, token: token, client: context.client, form: context.form, values: values, to: newPassword,
                address: request.remoteAddress)
        }
        var emailField = "email"
        for field in catalog.fields(ofForm: context.form) {
            guard let attribute = field.profileAttribute, let value = values[field.name] else { continue }
            if attribute == .email { emailField = field.name }
            user.set(attribute, to: value)
        }
        return try await save(user, previous: previous, emailField: emailField)
    }

    /// `changePasswordForm` (through `/oauth/update_profile_native`, as the SDK samples do): the current password
    /// is checked like a sign-in (throttled, charged first), then the new one is stored and, unless the client keeps
    /// them, the user's other sessions end (the caller's own chain stays signed in).
    private func changePassword(
        of user: User, token: TokenRecord, client: Client, form: String, values: [String: String], to newPassword: String,
        address: String?
    ) async throws -> User {
        guard let currentField = fieldName(for: "currentPassword", form: form), let current = values[currentField] else {
            throw CaptureError.invalidArgument("form", "'\(form)' has no current password field")
        }
        let attempt = try await throttle.begin(email: user.email, deviceHash: nil, address: address, now: time.now())
        guard await hasher.verify(current, hash: user.passwordHash ?? decoyHash) else {
            throw CaptureError.invalidFormFields([currentField: ["That is not your current password."]])
        }
        try await throttle.succeeded(attempt, now: time.now())
        var user = user
        user.passwordHash = await hasher.hash(newPassword)
        user.updatedAt = time.now()
        try await store.users.update(user)
        if !client.keepSessionsOnPasswordChange {
            try await store.tokens.revokeAll(userID: user.id, exceptChain: token.chainID, at: time.now())
        }
        return user
    }

    /// Stores `user` as changed from `previous` (the record its token was checked against). Only a changed address
    /// needs the uniqueness lookup, and it is no longer verified just because the old one was.
    private func save(_ user: User, previous: User, emailField: String) async throws -> User {
        var user = user
        if user.email != previous.email {
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
        return user
    }
}
