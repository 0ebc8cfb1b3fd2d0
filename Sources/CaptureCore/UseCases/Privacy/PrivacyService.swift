import Foundation

/// A person's own account: deletion, the data download, sessions.
public struct PrivacyService: Sendable {
    let users: any UserRepository
    let tokens: any TokenRepository
    let secondFactors: any SecondFactorRepository
    let time: any TimeSource
    let metrics: CaptureMetrics
    let catalog: FlowCatalog
    let settings: ServiceSettings
    let steps: FlowSteps
    let removal: AccountRemoval
    let accessTokens: AccessTokenCheck
    let audit: AuditTrail
    let oneTimeCodes: OneTimeCodes
    let stepUp: StepUpCheck
    let clientAccess: ClientAccess
    let providerLinks: ProviderLinks
    let profile: ProfileService
}

extension PrivacyService {

    /// `/oauth/deactivate_account` (`deactivateAccountForm`): the signed-in person deletes their account, proving it
    /// with the password (checked and throttled as a sign-in; from a session whose sign-in is not recent, with a
    /// second factor's code too where one is on), or without one with a recent sign-in (`requireStepUp`).
    /// Returns when the account will be erased.
    public func deactivateAccount(_ request: FlowRequest) async throws -> Date {
        let (user, token) = try await accessTokens.authenticate(accessToken: request.accessToken)
        let context = try await steps.context(of: request, issuesTokens: false)
        guard token.clientID == context.client.clientID else {
            throw CaptureError.notPermitted("this access_token was issued to another client")
        }
        if user.passwordHash != nil {
            let messages = catalog.messages(for: request)
            let values = try catalog.validate(form: context.form, in: context.flow, values: request.fields, messages: messages)
            guard let field = steps.fieldName(for: "currentPassword", form: context.form), let typed = values[field] else {
                throw CaptureError.invalidArgument("form", "'\(context.form)' has no current password field")
            }
            let password = CurrentPassword(
                field: field, typed: typed, address: request.remoteAddress, code: request.stepUp.code)
            try await stepUp.requireStepUp(.deleteAccount, of: user, token: token, password: password, messages: messages)
        } else {
            try await stepUp.requireStepUp(
                .deleteAccount, of: user, token: token, password: nil, messages: catalog.messages(for: request))
        }
        let deleted = try await removal.deactivate(user, locale: request.locale, by: "its owner")
        return settings.accountDeletion.erasure(of: deleted) ?? time.now()
    }

}
