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

    /// The Capture entity record in Janrain's shape (`/entity`, `capture_user`): the service's own attributes,
    /// then every schema attribute — null when empty, objects always as objects, plurals as lists with ids —
    /// and `profiles`, the linked provider accounts (Janrain's name), each with the `identifier` that
    /// `/oauth/unlink_account_native` takes.
    public func entity(schema: EntitySchema, profiles: [LinkedIdentity] = []) -> JSONValue {
        var record = Self.rendered(profile, scope: schema.attributes)
        for attribute in EntityServiceAttribute.allCases {
            record[attribute.rawValue] = serviceValue(attribute, profiles: profiles)
        }
        return .object(record)
    }

    /// One of the service's own attributes as the record shows it.
    func serviceValue(_ attribute: EntityServiceAttribute, profiles: [LinkedIdentity]) -> JSONValue {
        switch attribute {
        case .email: .string(email)
        case .id: number.map(JSONValue.int) ?? .null
        case .uuid: .string(id)
        case .emailVerified, .created, .lastUpdated, .lastLogin: .optional(serviceDate(attribute).map(CaptureDate.format))
        case .profiles: Self.entityProfiles(profiles)
        }
    }

    /// The date behind a date attribute (`EntityServiceAttribute.isDate`); nil when there is none yet.
    func serviceDate(_ attribute: EntityServiceAttribute) -> Date? {
        switch attribute {
        case .emailVerified: emailVerifiedAt
        case .created: createdAt
        case .lastUpdated: updatedAt
        case .lastLogin: lastLoginAt
        case .email, .id, .uuid, .profiles: nil
        }
    }

    /// The record's `profiles`: the linked provider accounts.
    static func entityProfiles(_ profiles: [LinkedIdentity]) -> JSONValue {
        .array(
            profiles.map { identity in
                [
                    "domain": .string(identity.provider), "identifier": .string(identity.identifier),
                    "email": .optional(identity.email), "created": .string(CaptureDate.format(identity.linkedAt)),
                    "lastUsed": .optional(identity.lastUsedAt.map(CaptureDate.format)),
                ]
            })
    }

    /// `/entity`'s `attribute_name`: one attribute (or plural element) by path; a service attribute by name.
    public func entityAttribute(_ text: String, schema: EntitySchema) throws(CaptureError) -> JSONValue {
        let path = try EntityPath(parsing: text)
        if path.isRoot { return entity(schema: schema) }
        if path.steps.count == 1, let step = path.steps.first, step.element == nil,
            EntitySchema.systemAttributes.contains(step.name), step.name != "password"
        {
            return entity(schema: schema).objectMembers?[step.name] ?? .null
        }
        let value = try document(schema: schema, asUser: true).value(at: path)
        let definition = try definition(at: path, schema)
        if path.steps.last?.element != nil, let definition {
            return .object(Self.rendered(value?.objectMembers, scope: definition.attributes, keepingID: value?.elementID))
        }
        return Self.rendered(value, definition: definition)
    }

    private func definition(at path: EntityPath, _ schema: EntitySchema) throws(CaptureError) -> AttributeDefinition? {
        do { return try schema.definition(at: path) } catch { throw .schemaViolation(error) }
    }

    static func rendered(
        _ members: [String: JSONValue]?, scope: [String: AttributeDefinition], keepingID id: Int64? = nil
    )
        -> [String: JSONValue]
    {
        var object: [String: JSONValue] = [:]
        for (name, definition) in scope { object[name] = rendered(members?[name], definition: definition) }
        if let id { object["id"] = .int(id) }
        return object
    }

    static func rendered(_ value: JSONValue?, definition: AttributeDefinition?) -> JSONValue {
        guard let definition else { return value ?? .null }
        switch definition.type {
        case .object: return .object(rendered(value?.objectMembers, scope: definition.attributes))
        case .plural:
            return .array(
                (value?.arrayElements ?? []).map { element in
                    .object(rendered(element.objectMembers, scope: definition.attributes, keepingID: element.elementID))
                })
        default: return value ?? .null
        }
    }
}
