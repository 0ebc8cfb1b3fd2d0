import CaptureJSON
import Foundation

extension SignInService {
    /// `/oauth/accept_terms`: the ticket of a sign-in that stopped for its documents, and `accept_documents`, finish
    /// it as it would have finished (same client, flow, response type and PKCE). The ticket is spent whatever the
    /// answer; one that still lacks a document answers with a new one.
    public func acceptTerms(ticket: String?, _ request: FlowRequest) async throws -> AuthResult {
        guard let ticket, !ticket.isEmpty else { throw CaptureError.missingArgument("ticket") }
        let now = time.now()
        guard let taken = try await ceremonies.use(hash: TokenMinter.hash(ticket), { (nil, $0) }),
            taken.kind == .termsAgreement, taken.expiresAt > now, taken.clientID == request.clientID,
            let userID = taken.userID, let user = try await users.find(id: userID)
        else { throw CaptureError.invalidArgument("ticket", "is unknown, expired or already used") }
        var parameters = StoredJSON.object(taken.payload)?.compactMapValues(\.stringValue) ?? [:]
        let provider = parameters.removeValue(forKey: TermsGate.resumeProviderKey) ?? "capture"
        let isNew = parameters.removeValue(forKey: TermsGate.resumeIsNewKey) == "true"
        parameters["accept_documents"] = request.acceptDocuments
        var resumed = FlowRequest(parameters: parameters, remoteAddress: request.remoteAddress, crossOrigin: request.crossOrigin)
        resumed.clientSecret = request.clientSecret
        resumed.userAgent = request.userAgent
        let context = try await steps.context(of: resumed, takesForm: false)
        return try await steps.complete(
            context, user: user, isNew: isNew, refreshSecret: resumed.refreshSecret, provider: provider,
            locale: resumed.locale)
    }
}
