import CaptureJSON
import Foundation

extension User {
    /// The record's schema attributes, ready to be read or changed (`asUser`: through the user's own token).
    public func document(schema: EntitySchema, asUser: Bool) -> EntityDocument {
        var values = profile
        values["email"] = .string(email)
        return EntityDocument(schema: schema, values: values, lastElementID: lastElementID, asUser: asUser)
    }

    /// Takes the attributes back from a changed document.
    public mutating func apply(_ document: EntityDocument) {
        var values = document.values
        if case .string(let address) = values.removeValue(forKey: "email") { email = User.normalize(email: address) }
        profile = values
        lastElementID = document.lastElementID
        uniqueValues = document.uniqueValues
    }
}
