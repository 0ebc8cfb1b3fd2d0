extension CaptureService {
    /// `/oauth/register_native_traditional`: validates the registration form, stores the user with a
    /// bcrypt hash, and signs them in.
    public func register(_ request: FlowRequest) async throws -> AuthResult {
        let context = try await context(of: request)
        let values = try catalog.validate(form: context.form, in: context.flow, values: request.fields)
        guard let emailField = fieldName(for: "email", form: context.form),
            let password = value(for: "password", form: context.form, in: values)
        else { throw CaptureError.invalidArgument("form", "'\(context.form)' is not a registration form") }
        let email = User.normalize(email: values[emailField] ?? "")
        if try await store.users.find(email: email) != nil {
            throw CaptureError.emailAddressInUse(field: emailField)
        }
        let now = time.now()
        var user = User(id: minter.identifier(), email: email, passwordHash: await hasher.hash(password), createdAt: now)
        for field in catalog.fields(ofForm: context.form) {
            if let attribute = field.profileAttribute, attribute != .email, let value = values[field.name] {
                user.set(attribute, to: value)
            }
        }
        user.lastLoginAt = now
        do {
            try await store.users.insert(user)
        } catch CaptureError.emailAddressInUse {
            throw CaptureError.emailAddressInUse(field: emailField)
        }
        return try await complete(context, user: user, isNew: true, refreshSecret: request.refreshSecret)
    }
}
