import CaptureJSON
import Foundation

/// The legal documents a sign-in must have accepted before any token or code.
public struct TermsGate: Sendable {
    let users: any UserRepository
    let ceremonies: any CeremonyRepository
    let minter: TokenMinter
    let time: any TimeSource
    let settings: ServiceSettings
    let catalog: FlowCatalog
    let audit: AuditTrail
}

extension TermsGate {

    /// How long a sign-in waits for its documents to be accepted.
    static let termsTicketLifetime: TimeInterval = 900
    static let resumeProviderKey = "_provider"
    static let resumeIsNewKey = "_is_new"

    /// The last step before any token or code (`complete`): a sign-in to a client whose documents the record has
    /// not accepted in their current version goes on only when the caller accepts them now (recorded in the record);
    /// otherwise it stops with the documents and a ticket that `/oauth/accept_terms` finishes it with.
    func agreeing(_ user: User, context: FlowContext, isNew: Bool, provider: String) async throws -> User {
        let clientID = context.client.clientID
        let missing = settings.legalTerms.missing(in: user, for: clientID)
        guard !missing.isEmpty else { return user }
        let now = time.now()
        if LegalTerms.covers(missing, accepted: context.acceptedDocuments) {
            var accepted = try settings.legalTerms.accepting(
                missing, in: user, clientID: clientID, at: now, schema: catalog.schema)
            accepted.updatedAt = now
            try await users.update(accepted)
            await recordTermsAccepted(missing, by: user.id)
            return accepted
        }
        var resume = context.resumable
        resume[Self.resumeProviderKey] = provider
        if isNew { resume[Self.resumeIsNewKey] = "true" }
        let ticket = minter.mint()
        try await ceremonies.insert(
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
        await audit.recordSecurityEvent(
            "user.terms_accepted", target: userID, detail: documents.map(\.reference).joined(separator: " "))
    }

    /// The documents a registration accepts: every one the client requires, or it is refused before anything is
    /// made (no ticket: the form is sent again with the boxes ticked).
    func requiredTermsAccepted(by request: FlowRequest, client: Client) throws -> [LegalDocument] {
        let required = settings.legalTerms.required(for: client.clientID)
        guard LegalTerms.covers(required, accepted: LegalTerms.accepted(request.acceptDocuments)) else {
            throw CaptureError.termsNotAccepted(
                ticket: nil, documents: required.map { AgreementDocument($0, locale: request.locale) })
        }
        return required
    }

}
