extension ProfileService {
    /// `/oauth/update_profile_native`: the `editProfileForm` of a flow, applied to the token's user: the attributes of
    /// the fields the request carries, and no others.
    public func updateProfile(_ request: FlowRequest) async throws -> User {
        let (previous, token) = try await accessTokens.authenticate(accessToken: request.accessToken)
        var user = previous
        // A profile save issues no token, so the page's response_type (a customer page's `code`) asks for no PKCE.
        let context = try await steps.context(of: request, issuesTokens: false)
        guard token.clientID == context.client.clientID else {
            throw CaptureError.notPermitted("this access_token was issued to another client")
        }
        // The current password, if sent (a field of the form, or `currentPassword` beside it), stands in for a recent
        // sign-in when the address changes.
        let listed = steps.fieldName(for: "currentPassword", form: context.form)
        let passwordField = listed ?? "currentPassword"
        var fields = request.fields
        let besideForm = listed == nil ? fields.removeValue(forKey: passwordField) : nil
        // A profile save changes what it carries (as Janrain's did: its own example sends `displayName` alone); a field
        // left out stays as it is, one sent empty is cleared. A password change is a whole form: every field it asks for.
        let partial = steps.fieldName(for: "password", form: context.form) == nil
        let values = try catalog.validate(
            form: context.form, in: context.flow, values: fields, messages: catalog.messages(for: request), partial: partial)
        if let newPassword = steps.value(for: "password", form: context.form, in: values) {
            return try await changePassword(
                of: user, token: token, client: context.client, form: context.form, values: values, to: newPassword,
                request: request, messages: catalog.messages(for: request))
        }
        try writer.write(form: context.form, values: values, into: &user, messages: catalog.messages(for: request))
        let emailField = catalog.fields(ofForm: context.form).first { $0.recordPath?.description == "email" }?.name ?? "email"
        let typed = values[passwordField] ?? besideForm ?? request.stepUp.password
        let password = typed.flatMap {
            $0.isEmpty
                ? nil
                : CurrentPassword(
                    field: passwordField, typed: $0, address: request.remoteAddress, code: request.stepUp.code)
        }
        do {
            return try await save(
                user, previous: previous, emailField: emailField, token: token, password: password, flow: context.flow,
                locale: request.locale, messages: catalog.messages(for: request))
        } catch let error as CaptureError {
            throw writer.formError(error, form: context.form, messages: catalog.messages(for: request))
        }
    }

    /// `changePasswordForm` (through `/oauth/update_profile_native`, as the SDK samples do): the current password
    /// is checked like a sign-in (throttled, charged first) and the step-up applies (a session whose sign-in is not
    /// recent also sends a second factor's code where one is on), then the new one is stored and, unless the client
    /// keeps them, the user's other sessions end (the caller's own chain stays signed in).
    private func changePassword(
        of user: User, token: TokenRecord, client: Client, form: String, values: [String: String], to newPassword: String,
        request: FlowRequest, messages: Messages
    ) async throws -> User {
        guard let currentField = steps.fieldName(for: "currentPassword", form: form), let current = values[currentField] else {
            throw CaptureError.invalidArgument("form", "'\(form)' has no current password field")
        }
        let password = CurrentPassword(
            field: currentField, typed: current, address: request.remoteAddress, code: request.stepUp.code)
        try await stepUp.requireStepUp(.changePassword, of: user, token: token, password: password, messages: messages)
        var user = user
        user.passwordHash = await hasher.hash(newPassword)
        user.updatedAt = time.now()
        try await users.update(user)
        if !client.keepSessionsOnPasswordChange {
            metrics.revoked(
                try await tokens.revokeAll(userID: user.id, exceptChain: token.chainID, at: time.now()), .passwordChange)
        }
        return user
    }
}
