import Foundation

/// Sign-in and registration through a provider, links to providers, the provider's own SDK's hand-off.
public struct SocialService: Sendable {
    let users: any UserRepository
    let identities: any IdentityRepository
    let socialLogins: any SocialLoginRepository
    let throttle: SignInThrottle
    let time: any TimeSource
    let minter: TokenMinter
    let social: SocialProviders
    let catalog: FlowCatalog
    let settings: ServiceSettings
    let metrics: CaptureMetrics
    let codeKey: CodeKey
    let steps: FlowSteps
    let admission: Admission
    let terms: TermsGate
    let accessTokens: AccessTokenCheck
    let clientAccess: ClientAccess
    let writer: RecordWriter
    let oneTimeCodes: OneTimeCodes
    let stepUp: StepUpCheck
    let secondFactor: SecondFactorCheck
    let revocations: ProviderRevocations
    let providerLinks: ProviderLinks
    let providerIdentities: ProviderIdentities
}

extension SocialService {
    /// `/oauth/auth_native` with the one-time `token` of a social sign-in: a linked provider account signs in
    /// (and, with `merge_token`, links the provider account of an earlier sign-in that was answered 380);
    /// an address that belongs to an account of ours asks for a merge (380, naming how that account signs in);
    /// otherwise, with `thin_registration`, the account is made from the provider's profile, and without it (or
    /// when the profile lacks what the schema requires) the registration form comes back prefilled (310,
    /// `prereg_fields`). The token is spent only by a sign-in or a registration.
    public func signInWithProvider(_ request: FlowRequest) async throws -> AuthResult {
        try await metrics.countingSignIn(.social) { try await signInWithLinkedProvider(request) }
    }

    private func signInWithLinkedProvider(_ request: FlowRequest) async throws -> AuthResult {
        let context = try await steps.context(of: request, takesForm: false)
        let registrationForm = try socialRegistrationForm(request.registrationForm, flow: context.flow)
        let login = try await providerLinks.pendingSocialLogin(
            request.socialToken, client: context.client, verifier: request.codeVerifier)
        guard let subject = login.subject else { throw ProviderLinks.unusableSocialToken }
        if let identity = try await identities.find(provider: login.provider, subject: subject) {
            guard var user = try await users.find(id: identity.userID) else { throw ProviderLinks.unusableSocialToken }
            try admission.admit(user, reactivating: request.reactivate)
            // The SDKs finish a merge whose 380 named a provider by signing in with that provider and the first
            // sign-in's token as `merge_token` (jump.ios `captureTokenUrlWithMergeToken`, jump.android
            // `performSocialSignIn(…, mergeToken)`). Merged before this token is spent, so a refused merge leaves
            // the sign-in to be tried again.
            if let mergeToken = request.mergeToken {
                try await providerLinks.mergeSocialLogin(
                    mergeToken, into: user, client: context.client, verifier: request.codeVerifier)
            }
            try await providerLinks.spend(login)
            try await identities.touch(
                provider: login.provider, subject: subject, at: time.now(), providerToken: login.providerToken)
            try await revocations.revokeReplacedProviderToken(of: identity, by: login)
            // The provider proved its account; an account with a second factor still asks for it.
            try await secondFactor.requireSecondFactor(of: user, request, client: context.client, provider: login.provider)
            user.lastLoginAt = time.now()
            try await users.update(user)
            return try await steps.complete(
                context, user: user, isNew: false, refreshSecret: request.refreshSecret, provider: login.provider,
                locale: request.locale)
        }
        // A merge goes into the account this provider account signs in to; one that signs in to none cannot take it
        // (without this, thin registration would make a new account and silently drop the merge).
        if request.mergeToken != nil {
            throw CaptureError.invalidArgument(
                "merge_token", "this \(login.provider) account belongs to no account here: sign in with the account's own")
        }
        // Only an address the provider vouches for finds an account or makes one (ProviderAddress).
        let email = providerLinks.address(of: login).vouched
        if let email, let existing = try await users.find(email: email) {
            try await providerLinks.keepForForm(login)
            throw CaptureError.mergeRequired(existingProvider: try await existingProvider(of: existing), email: email)
        }
        let prefill = registrationPrefill(login, form: registrationForm)
        guard request.thinRegistration, let email, !email.isEmpty else {
            try await providerLinks.keepForForm(login)
            throw CaptureError.registrationRequired(prefill: prefill)
        }
        try await throttle.admitRegistration(address: request.remoteAddress, now: time.now())
        var user = newSocialUser(email: email, login: login)
        do {
            try writer.write(texts: claimTexts(login), into: &user)
        } catch {
            // The provider's profile does not make a record this schema accepts: the form lets the user fix it.
            try await providerLinks.keepForForm(login)
            throw CaptureError.registrationRequired(prefill: prefill)
        }
        return try await createSocialUser(user, login: login, subject: subject, context: context, request: request)
    }

    /// `/oauth/register_native`: the social registration form (`socialRegistrationForm`) with the one-time
    /// `token`: the account is made from the form (and the provider's profile for what the form does not ask),
    /// linked to the provider account, and signed in. An address in use answers 380 on its field, as registration does.
    public func registerWithProvider(_ request: FlowRequest) async throws -> AuthResult {
        let context = try await steps.context(of: request)
        let login = try await providerLinks.pendingSocialLogin(
            request.socialToken, client: context.client, verifier: request.codeVerifier)
        guard let subject = login.subject else { throw ProviderLinks.unusableSocialToken }
        if try await identities.find(provider: login.provider, subject: subject) != nil {
            throw CaptureError.notPermitted("this provider account already has an account: sign in with it")
        }
        let values = try catalog.validate(
            form: context.form, in: context.flow, values: request.fields, messages: catalog.messages(for: request))
        guard let emailField = steps.fieldName(for: "email", form: context.form), let typed = values[emailField] else {
            throw CaptureError.invalidArgument("form", "'\(context.form)' is not a registration form")
        }
        let documents = try terms.requiredTermsAccepted(by: request, client: context.client)
        try await throttle.admitRegistration(address: request.remoteAddress, now: time.now())
        let email = User.normalize(email: typed)
        if try await users.find(email: email) != nil { throw CaptureError.emailAddressInUse(field: emailField) }
        var user = newSocialUser(email: email, login: login)
        // The provider's profile first, then what the person typed (which wins).
        try? writer.write(texts: claimTexts(login), into: &user)
        user.email = email
        try writer.write(form: context.form, values: values, into: &user, messages: catalog.messages(for: request))
        if !providerLinks.address(of: login).vouches(for: email) { user.emailVerifiedAt = nil }
        user = try settings.legalTerms.accepting(
            documents, in: user, clientID: context.client.clientID, at: time.now(), schema: catalog.schema)
        let consents: [Consents.Change]
        (user, consents) = writer.stampingConsents(user, previous: nil, clientID: context.client.clientID)
        do {
            return try await createSocialUser(
                user, login: login, subject: subject, context: context, request: request, consents: consents,
                documents: documents)
        } catch CaptureError.emailAddressInUse {
            throw CaptureError.emailAddressInUse(field: emailField)
        } catch let error as CaptureError {
            throw writer.formError(error, form: context.form, messages: catalog.messages(for: request))
        }
    }

    // MARK: parts

    private func newSocialUser(email: String, login: SocialLogin) -> User {
        var user = User(id: minter.identifier(), email: email, passwordHash: nil, createdAt: time.now())
        user.lastLoginAt = user.createdAt
        if providerLinks.address(of: login).vouches(for: email) { user.emailVerifiedAt = user.createdAt }
        return user
    }

    private func createSocialUser(
        _ user: User, login: SocialLogin, subject: String, context: FlowContext, request: FlowRequest,
        consents: [Consents.Change] = [], documents: [LegalDocument] = []
    ) async throws -> AuthResult {
        try await providerLinks.spend(login)
        let identity = providerLinks.linkedIdentity(login, subject: subject, user: user)
        let stored = try await users.insert(user, linking: identity)
        await writer.recordConsentChanges(consents, of: stored.id)
        await terms.recordTermsAccepted(documents, by: stored.id)
        if stored.emailVerifiedAt == nil {
            try await oneTimeCodes.sendCode(
                .emailVerification, to: stored.email, user: stored, context: context, locale: request.locale)
        }
        return try await steps.complete(
            context, user: stored, isNew: true, refreshSecret: request.refreshSecret, provider: login.provider,
            locale: request.locale, mailed: true)
    }

    /// The provider's claims as text at schema paths, by the provider's claim mapping.
    func claimTexts(_ login: SocialLogin) -> [(EntityPath, String)] {
        let mapping = social.provider(named: login.provider)?.settings.claims ?? SocialProviderSettings.defaultClaims
        return mapping.sorted { $0.key < $1.key }.compactMap { attribute, claim in
            guard let path = try? EntityPath(parsing: attribute), let value = login.claims?[claim] else { return nil }
            switch value {
            case .string(let text): return (path, text)
            case .bool, .int, .double: return (path, value.compactText)
            default: return nil
            }
        }
    }

    /// `prereg_fields`: the social registration form's fields, filled from the provider's profile.
    /// An address the provider does not vouch for is not offered: the person types one, to be proven like any other.
    func registrationPrefill(_ login: SocialLogin, form: String) -> [String: String] {
        var texts = Dictionary(claimTexts(login).map { ($0.0.description, $0.1) }) { first, _ in first }
        if providerLinks.address(of: login).vouched == nil { texts["email"] = nil }
        var prefill: [String: String] = [:]
        for field in catalog.fields(ofForm: form) {
            if let path = field.recordPath, let text = texts[path.description] { prefill[field.name] = text }
        }
        return prefill
    }

    /// The form a 310's `prereg_fields` are for: the SDK's `registration_form` when it names one of the flow's
    /// forms, else ours.
    func socialRegistrationForm(_ requested: String?, flow: FlowDefinition) throws -> String {
        guard let requested else { return catalog.formKey("socialRegistrationForm", in: flow) }
        guard catalog.isForm(catalog.formKey(requested, in: flow), of: flow) else {
            throw CaptureError.invalidArgument("registration_form", "'\(requested)' is not a form of flow '\(flow.name)'")
        }
        return catalog.formKey(requested, in: flow)
    }

    /// What a 380's `existing_provider` tells the SDKs to sign in with: `capture` (the password, then `merge_token`
    /// on `auth_native_traditional`) when the account has a password, else a configured provider it is linked to
    /// (a social sign-in with it, then `merge_token` on `auth_native`). An account with neither (an import
    /// without a password) gets `capture`: "forgot password" gives it one.
    func existingProvider(of user: User) async throws -> String {
        if user.passwordHash != nil { return "capture" }
        let linked = try await identities.list(userID: user.id)
        return linked.first { social.provider(named: $0.provider) != nil }?.provider ?? "capture"
    }
}
