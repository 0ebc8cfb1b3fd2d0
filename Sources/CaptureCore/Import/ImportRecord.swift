import CaptureJSON
import Foundation

/// One exported Janrain record turned into a user. The service's own attributes (`uuid`, `id`, `created`,
/// `lastUpdated`, `lastLogin`, `emailVerified`, `password`) are taken as exported; every other attribute goes
/// through the schema as an operator's write (`readOnly` ones included), and the record is checked whole.
public enum ImportRecord {
    /// The user `record` describes; `newID` names a record exported without a `uuid`.
    public static func user(
        from record: JSONValue, schema: EntitySchema, ignoreUnknown: Bool, now: Date, newID: () -> String
    ) throws(CaptureError) -> User {
        do {
            guard case .object(var members) = record else {
                throw SchemaViolation(.invalidJSONType, "", "a record must be a JSON object")
            }
            let id = try uuid(members.removeValue(forKey: "uuid")) ?? newID()
            let number = try number(members.removeValue(forKey: "id"))
            let created = try date(members.removeValue(forKey: "created"), "created") ?? now
            let updated = try date(members.removeValue(forKey: "lastUpdated"), "lastUpdated") ?? created
            let lastLogin = try date(members.removeValue(forKey: "lastLogin"), "lastLogin")
            let verified = try date(members.removeValue(forKey: "emailVerified"), "emailVerified")
            let passwordHash = try ImportedPasswordHash.hash(from: members.removeValue(forKey: "password"))
            if ignoreUnknown { members = known(members, scope: schema.attributes) }
            let lastElementID = try PluralElementIDs.largest(in: members, scope: schema.attributes)

            // Storage's element ids are kept: `replace` keeps an element whose id the record already holds, so the
            // document starts from the exported values and is then replaced by them, every value checked.
            var document = EntityDocument(schema: schema, values: members, lastElementID: lastElementID, asUser: false)
            try document.replace(at: EntityPath(steps: []), with: .object(members))
            var user = User(id: id, email: "", passwordHash: passwordHash, createdAt: created)
            user.apply(document)
            user.number = number
            user.updatedAt = updated
            user.lastLoginAt = lastLogin
            user.emailVerifiedAt = verified
            return user
        } catch {
            throw CaptureError(error)
        }
    }

    /// A UUID (8-4-4-4-12 hex digits), lower-cased as the service writes them.
    static func uuid(_ value: JSONValue?) throws(SchemaViolation) -> String? {
        switch value {
        case nil, .null?: return nil
        case .string(let text)?:
            let bytes = Array(text.utf8)
            let isUUID =
                bytes.count == 36
                && bytes.indices.allSatisfy { index in
                    [8, 13, 18, 23].contains(index) ? bytes[index] == 45 : bytes[index].hexDigitValue != nil
                }
            guard isUUID else { throw SchemaViolation(.invalidDataFormat, "uuid", "uuid must be a UUID like 0a1b2c3d-…") }
            return text.lowercased()
        default: throw SchemaViolation(.invalidJSONType, "uuid", "uuid must be a string")
        }
    }

    /// Janrain's numeric `id`: a whole number above 0.
    static func number(_ value: JSONValue?) throws(SchemaViolation) -> Int64? {
        switch value {
        case nil, .null?: return nil
        case .int(let number)? where number > 0: return number
        default: throw SchemaViolation(.invalidJSONType, "id", "id must be a whole number above 0")
        }
    }

    static func date(_ value: JSONValue?, _ name: String) throws(SchemaViolation) -> Date? {
        switch value {
        case nil, .null?: return nil
        case .string(let text)?:
            guard let date = CaptureDate.parse(text) else {
                throw SchemaViolation(
                    .invalidDateTime, name, "\(name) must be a date and time like 2024-05-01 12:30:00.000000 +0000")
            }
            return date
        default: throw SchemaViolation(.invalidDateTime, name, "\(name) must be a date and time (a string)")
        }
    }

    /// `members` without the attributes the schema does not define, at every depth (`--ignore-unknown`).
    static func known(
        _ members: [String: JSONValue], scope: [String: AttributeDefinition], keepingID: Bool = false
    )
        -> [String: JSONValue]
    {
        var result: [String: JSONValue] = [:]
        for (key, value) in members {
            if keepingID && key == "id" {
                result[key] = value
                continue
            }
            guard let definition = scope[key] else { continue }
            switch (definition.type, value) {
            case (.object, .object(let inner)): result[key] = .object(known(inner, scope: definition.attributes))
            case (.plural, .array(let elements)):
                result[key] = .array(
                    elements.map { element in
                        guard case .object(let inner) = element else { return element }
                        return .object(known(inner, scope: definition.attributes, keepingID: true))
                    })
            default: result[key] = value
            }
        }
        return result
    }
}
