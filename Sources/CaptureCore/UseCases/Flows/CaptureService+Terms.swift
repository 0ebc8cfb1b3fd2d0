import CaptureJSON
import Foundation

extension CaptureService {
    /// The documents clients require (`legalDocuments`).
    public var legalTerms: LegalTerms { LegalTerms(documents: settings.legalDocuments) }

    /// How long a sign-in waits for its documents to be accepted.
    static let termsTicketLifetime: TimeInterval = 900
    private static let resumeProviderKey = "_provider"
    private static let resumeIsNewKey = "_is_new"

    /// The last step before any token or code (`complete`): a sign-in to a client whose documents the record has
    /// not accepted in their current version goes on only when the caller accepts them now (recorded in the record);
    /// otherwise it stops with the documents and a ticket that `/oauth/accept_terms` finishes it with.
    func agreeing(_ user: User, context: FlowContext, isNew: Bool, provider: String) async throws -> User {
        let clientID = context.client.clientID
        let missing = legalTerms.missing(in: user, for: clientID)
        guard !missing.isEmpty else { return user }
        let now = time.now()
        if LegalTerms.covers(missing, accepted: context.acceptedDocuments) {
            var accepted = try legalTerms.accepting(missing, in: user, clientID: clientID, at: now, schema: catalog.schema)
            accepted.updatedAt = now
            try await store.users.update(accepted)
            await recordTermsAccepted(missing, by: user.id)
            return accepted
        }
        var resume = context.resumable
        resume[Self.resumeProviderKey] = provider
        if isNew { resume[Self.resumeIsNewKey] = "true" }
        let ticket = minter.mint()
        try await store.ceremonies.insert(
            PendingCeremony(
                hash: TokenMinter.hash(ticket), kind: .termsAgreement, userID: user.id, clientID: clientID,
                payload: String(decoding: JSONValue.object(resume.mapValues(JSONValue.string)).encodedBytes(), as: UTF8.self),
                createdAt: now, expiresAt: now.addingTimeInterval(Self.termsTicketLifetime)))
        throw CaptureError.termsNotAccepted(
            ticket: ticket, documents: missing.map { AgreementDocument($0, locale: context.locale) })
    }

    /// Every acceptance is an audit row (`user.terms_accepted`, the documents' references), whichever path took it:
    /// a registration, a social registration, a sign-in, `/oauth/accept_terms`; the data download lists them.
    func recordTermsAccepted(_ documents: [LegalDocument], by userID: String) async {
        guard !documents.isEmpty else { return }
        await recordSecurityEvent(
            "user.terms_accepted", target: userID, detail: documents.map(\.reference).joined(separator: " "))
    }

    /// The documents a registration accepts: every one the client requires, or it is refused before anything is
    /// made (no ticket: the form is sent again with the boxes ticked).
    func requiredTermsAccepted(by request: FlowRequest, client: Client) throws -> [LegalDocument] {
        let required = legalTerms.required(for: client.clientID)
        guard LegalTerms.covers(required, accepted: LegalTerms.accepted(request.acceptDocuments)) else {
            throw CaptureError.termsNotAccepted(
                ticket: nil, documents: required.map { AgreementDocument($0, locale: request.locale) })
        }
        return required
    }

    /// `/oauth/accept_terms`: the ticket of a sign-in that stopped for its documents, and `accept_documents`, finish
    /// it as it would have finished (same client, flow, response type and PKCE). The ticket is spent whatever the
    /// answer; one that still lacks a document answers with a new one.
    public func acceptTerms(ticket: String?, _ request: FlowRequest) async throws -> AuthResult {
        guard let ticket, !ticket.isEmpty else { throw CaptureError.missingArgument("ticket") }
        let now = time.now()
        guard let taken = try await store.ceremonies.use(hash: TokenMinter.hash(ticket), { (nil, $0) }),
            taken.kind == .termsAgreement, taken.expiresAt > now, taken.clientID == request.clientID,
            let userID = taken.userID, let user = try await store.users.find(id: userID)
        else { throw CaptureError.invalidArgument("ticket", "is unknown, expired or already used") }
        var parameters = StoredJSON.object(taken.payload)?.compactMapValues(\.stringValue) ?? [:]
        let provider = parameters.removeValue(forKey: Self.resumeProviderKey) ?? "capture"
        let isNew = parameters.removeValue(forKey: Self.resumeIsNewKey) == "true"
        parameters["accept_documents"] = request.acceptDocuments
        var resumed = FlowRequest(parameters: parameters, remoteAddress: request.remoteAddress, crossOrigin: request.crossOrigin)
        resumed.clientSecret = request.clientSecret
        resumed.userAgent = request.userAgent
        let context = try await context(of: resumed, takesForm: false)
        return try await complete(
            context, user: user, isNew: isNew, refreshSecret: resumed.refreshSecret, provider: provider,
            locale: resumed.locale)
    }
}
