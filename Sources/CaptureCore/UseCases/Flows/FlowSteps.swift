/// The steps every flow call shares: its context (client, flow, form, response type), its texts, its completion.
public struct FlowSteps: Sendable {
    let catalog: FlowCatalog
    let settings: ServiceSettings
    let clientAccess: ClientAccess
    let admission: Admission
    let provenAddress: ProvenAddress
    let terms: TermsGate
    let issuer: TokenIssuer
    let oidcCodes: OIDCCodes
}

extension FlowSteps {
    /// Checks client, flow, form, response type and redirect URI of a submission, in that order. Calls that issue
    /// no tokens (`issuesTokens: false`: recovery, verification, profile saves) take the SDKs' `response_type`
    /// without PKCE.
    func context(of request: FlowRequest, issuesTokens: Bool = true, takesForm: Bool = true) async throws -> FlowContext {
        let client = try await flowClient(of: request, issuesTokens: issuesTokens)
        try checkCrossOrigin(request, of: client)
        guard let flowName = request.flow, !flowName.isEmpty else { throw CaptureError.missingArgument("flow") }
        guard let flow = catalog.flow(named: flowName) else {
            throw CaptureError.invalidArgument("flow", "unknown flow '\(flowName)'")
        }
        if takesForm && (request.form ?? "").isEmpty { throw CaptureError.missingArgument("form") }
        let form = takesForm ? catalog.formKey(request.form ?? "", in: flow) : ""
        guard let responseType = ResponseType(parameter: request.responseType, fallback: .token) else {
            throw CaptureError.invalidArgument("response_type", "must be token, code or code_and_token")
        }
        // An OpenID Connect client's sign-in hands back a code whatever the page asks (/oidc/authorize checked it).
        guard client.responseTypes.contains(responseType) || (request.oidcRequest != nil && issuesTokens) else {
            throw CaptureError.invalidArgument("response_type", "'\(responseType.rawValue)' is not allowed for this client")
        }
        // An OpenID Connect client's sign-in goes to the redirect URI /oidc/authorize checked, not to the page's.
        if request.oidcRequest == nil || !issuesTokens { try clientAccess.checkRedirect(request.redirectURI, for: client) }
        var context = FlowContext(client: client, flow: flow, form: form, responseType: responseType)
        context.reactivates = request.reactivate
        context.device = DeviceHint.describe(userAgent: request.userAgent)
        context.resumable = request.resumable
        context.locale = request.locale
        context.acceptedDocuments = LegalTerms.accepted(request.acceptDocuments)
        if let sealed = request.oidcRequest, issuesTokens {
            // An OpenID Connect client's sign-in: its code, bound to what /oidc/authorize checked.
            let authorization = try oidcCodes.opened(sealed, clientID: client.clientID)
            context.authorization = authorization
            context.responseType = .code
            context.codeChallenge = authorization.codeChallenge
            context.redirectURI = authorization.redirectURI
        } else if responseType.issuesCode && issuesTokens {
            // A public client's code must be bound to a PKCE challenge, except with `code_and_token`: that reply hands
            // the caller the access and refresh tokens as well, so a code bound to the client alone exposes nothing
            // they do not. jump.ios and jump.android ask for `code_and_token` (never with PKCE) when the app wants a
            // code for its backend.
            context.codeChallenge = try PKCE.checkedChallenge(
                request.codeChallenge, method: request.codeChallengeMethod,
                required: !client.isConfidential && responseType == .code)
            context.redirectURI = request.redirectURI.flatMap { $0.isEmpty ? nil : $0 }
        }
        return context
    }

    /// Other sites' pages must not drive sign-in from their visitors' browsers (guessing, login CSRF).
    func checkCrossOrigin(_ request: FlowRequest, of client: Client) throws {
        if let origin = request.crossOrigin,
            !ClientRules.acceptsOrigin(origin, allowed: client.allowedOrigins, publicOrigin: settings.resolvedPublicOrigin)
        {
            throw CaptureError.notPermitted("pages on \(origin) may not use this client's flows")
        }
    }

    /// What a sign-in or registration hands back, by response type; nothing but 112 to a client that requires a
    /// proven address the account lacks (`mailed`: the caller just sent the code).
    func complete(
        _ context: FlowContext, user: User, isNew: Bool, refreshSecret: String?, provider: String = "capture",
        locale: String? = nil, mailed: Bool = false
    ) async throws -> AuthResult {
        var user = try await admission.admitted(user, reactivating: context.reactivates)
        try await provenAddress.requireProvenAddress(
            of: user, client: context.client, flow: context.flow, locale: locale, mailed: mailed)
        user = try await terms.agreeing(user, context: context, isNew: isNew, provider: provider)
        var result = AuthResult(user: user, isNew: isNew)
        if let authorization = context.authorization {
            let session = oidcCodes.newSession(
                for: user,
                methods: AuthenticationMethods.of(
                    provider: provider, secondFactor: context.secondFactorUsed, syncedPasskey: context.syncedPasskey))
            result.authorizationRedirect = try await oidcCodes.issue(
                authorization, to: user, client: context.client, session: session)
            result.browserSession = session.sealed(with: oidcCodes.codeKey)
            return result
        }
        if context.responseType.issuesTokens {
            result.grant = try await issuer.issueTokens(
                for: user, client: context.client, refreshSecret: refreshSecret, provider: provider,
                device: context.device)
        }
        if context.responseType.issuesCode {
            let issued = try await issuer.issueCode(
                for: user, client: context.client, redirectURI: context.redirectURI, codeChallenge: context.codeChallenge,
                refreshSecret: refreshSecret, device: context.device)
            result.authorizationCode = issued.code
            result.signOutToken = issued.signOutToken
        }
        return result
    }

    /// The client a flow call is for. A confidential client's secret proves its backend; its own pages sign people in
    /// without it (as OAuth's authorization step takes no secret), so a call without the secret gets nothing that
    /// works without the secret: a code its backend exchanges with the secret (`/oauth/token`), or no credential at
    /// all (recovery, verification, a profile saved with an access token). Tokens need the secret.
    func flowClient(of request: FlowRequest, issuesTokens: Bool) async throws -> Client {
        let client = try await clientAccess.client(id: request.clientID)
        guard client.isConfidential, request.clientSecret == nil else {
            try clientAccess.checkSecret(request.clientSecret, of: client)
            return client
        }
        let responseType = ResponseType(parameter: request.responseType, fallback: .token)
        if issuesTokens && responseType?.issuesTokens != false && request.oidcRequest == nil {
            throw CaptureError.invalidClient
        }
        return client
    }

    /// The value of the form's field that maps to `attribute` (e.g. "email", "password").
    func value(for attribute: String, form: String, in values: [String: String]) -> String? {
        catalog.fields(ofForm: form).first { $0.attribute == attribute }.flatMap { values[$0.name] }
    }

    func fieldName(for attribute: String, form: String) -> String? {
        catalog.fields(ofForm: form).first { $0.attribute == attribute }?.name
    }
}
