import CaptureJSON
import Foundation

/// What a record must have accepted to sign in to a client, and how an acceptance is written into it: Janrain's
/// `legalAcceptances` plural (`legalAcceptanceId`, `version`, `dateAccepted`, `clientId`), which only the service
/// writes (`readOnly` in the schema).
public struct LegalTerms: Sendable {
    public let documents: [LegalDocument]
    public static let attribute = "legalAcceptances"
    /// The attributes each element of `legalAcceptances` needs in the schema.
    public static let elementAttributes = ["legalAcceptanceId", "version", "dateAccepted", "clientId"]

    public init(documents: [LegalDocument]) { self.documents = documents }

    /// The documents the client requires.
    public func required(for clientID: String) -> [LegalDocument] { documents.filter { $0.applies(to: clientID) } }

    /// The client's documents whose current version the record has not accepted.
    public func missing(in user: User, for clientID: String) -> [LegalDocument] {
        let accepted = Set(
            (user.profile[Self.attribute]?.arrayElements ?? []).compactMap { element -> String? in
                guard let id = element.objectMembers?["legalAcceptanceId"]?.stringValue,
                    let version = element.objectMembers?["version"]?.stringValue
                else { return nil }
                return "\(id):\(version)"
            })
        return required(for: clientID).filter { !accepted.contains($0.reference) }
    }

    /// `accept_documents`: the references a caller accepts, separated by spaces or commas. Only a document's current
    /// version counts: a page showing an older text has not had it accepted.
    public static func accepted(_ parameter: String?) -> Set<String> {
        Set((parameter ?? "").split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init))
    }

    /// Those of `missing` that `accepted` names, all of them, or nil when one is left.
    public static func covers(_ missing: [LegalDocument], accepted: Set<String>) -> Bool {
        missing.allSatisfy { accepted.contains($0.reference) }
    }

    /// The record with an acceptance of each of `documents` appended.
    public func accepting(
        _ documents: [LegalDocument], in user: User, clientID: String, at date: Date, schema: EntitySchema
    ) throws -> User {
        guard !documents.isEmpty else { return user }
        var user = user
        var document = user.document(schema: schema, asUser: false)
        let elements = documents.map { accepted -> JSONValue in
            [
                "legalAcceptanceId": .string(accepted.id), "version": .string(accepted.version),
                "dateAccepted": .string(CaptureDate.format(date)), "clientId": .string(clientID),
            ]
        }
        try document.update(at: EntityPath(steps: []), with: [Self.attribute: .array(elements)])
        user.apply(document)
        return user
    }

    /// Settings check: documents need the plural in the schema to be recorded.
    public static func problem(documents: [LegalDocument], schema: EntitySchema) -> String? {
        guard !documents.isEmpty else { return nil }
        guard let plural = schema.attributes[attribute], plural.type == .plural,
            elementAttributes.allSatisfy({ plural.attributes[$0] != nil })
        else {
            return "legalDocuments needs the schema's '\(attribute)' plural with "
                + elementAttributes.joined(separator: ", ")
        }
        return nil
    }
}
