extension SignInService {
    /// `/oauth/register_native_traditional`: validates the registration form, stores the user with a
    /// bcrypt hash, and signs them in. Attempts are limited per address, and the password is hashed before
    /// the address is looked up, so an address in use (380) answers no faster than a new one.
    public func register(_ request: FlowRequest) async throws -> AuthResult {
        let context = try await steps.context(of: request)
        let values = try catalog.validate(
            form: context.form, in: context.flow, values: request.fields, messages: catalog.messages(for: request))
        guard let emailField = steps.fieldName(for: "email", form: context.form),
            let password = steps.value(for: "password", form: context.form, in: values)
        else { throw CaptureError.invalidArgument("form", "'\(context.form)' is not a registration form") }
        let documents = try terms.requiredTermsAccepted(by: request, client: context.client)
        try await throttle.admitRegistration(address: request.remoteAddress, now: time.now())
        let email = User.normalize(email: values[emailField] ?? "")
        let passwordHash = await hasher.hash(password)
        if try await users.find(email: email) != nil {
            throw CaptureError.emailAddressInUse(field: emailField)
        }
        let now = time.now()
        var user = User(id: minter.identifier(), email: email, passwordHash: passwordHash, createdAt: now)
        try writer.write(form: context.form, values: values, into: &user, messages: catalog.messages(for: request))
        user.email = email
        user.lastLoginAt = now
        user = try settings.legalTerms.accepting(
            documents, in: user, clientID: context.client.clientID, at: now, schema: catalog.schema)
        let consents: [Consents.Change]
        (user, consents) = writer.stampingConsents(user, previous: nil, clientID: context.client.clientID)
        do {
            user = try await users.insert(user)
        } catch CaptureError.emailAddressInUse {
            throw CaptureError.emailAddressInUse(field: emailField)
        } catch let error as CaptureError {
            throw writer.formError(error, form: context.form, messages: catalog.messages(for: request))
        }
        await writer.recordConsentChanges(consents, of: user.id)
        await terms.recordTermsAccepted(documents, by: user.id)
        try await throttle.registered(email: email, address: request.remoteAddress, now: now)
        try await oneTimeCodes.sendCode(.emailVerification, to: email, user: user, context: context, locale: request.locale)
        var result = try await steps.complete(
            context, user: user, isNew: true, refreshSecret: request.refreshSecret, locale: request.locale, mailed: true)
        result.deviceToken = try await issuer.deviceToken(for: user, client: context.client, request: request, trusted: nil)
        return result
    }
}
