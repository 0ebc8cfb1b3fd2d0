import CaptureJSON
import Foundation

/// The Capture entity record in Janrain's shape (`/entity`, `capture_user`): the service's own attributes, then every
/// schema attribute — null when empty, objects always as objects, plurals as lists with ids — and `profiles`, the
/// linked provider accounts (Janrain's name), each with the `identifier` that `/oauth/unlink_account_native` takes.
///
/// The one encoder of the record. `record` builds it as a value; `write` writes its bytes for `/entity` from the
/// profile's stored text, copying the values where the text is as `JSONWriter` writes it (`StoredJSON`, what storage
/// keeps), which gives the built record's bytes without building it (`EntityEncoder+StoredText`).
public struct EntityEncoder: Sendable {
    public let schema: EntitySchema

    public init(schema: EntitySchema) {
        self.schema = schema
    }

    /// The whole record.
    public func record(_ user: User, profiles: [LinkedIdentity] = [], passkeys: [Passkey] = []) -> JSONValue {
        var record = Self.rendered(user.profile, scope: schema.attributes)
        for attribute in EntityServiceAttribute.allCases {
            record[attribute.rawValue] = Self.serviceValue(attribute, of: user, profiles: profiles, passkeys: passkeys)
        }
        return .object(record)
    }

    /// `/entity`'s reply bytes: from `storedProfile`, the profile's stored text, when the user was read without
    /// parsing it (the token check's read); from `user.profile` otherwise.
    public func write(
        _ user: User, storedProfile: String?, profiles: [LinkedIdentity], passkeys: [Passkey] = [], to output: inout [UInt8]
    ) {
        guard let storedProfile else {
            return JSONWriter.write(record(user, profiles: profiles, passkeys: passkeys), to: &output)
        }
        let start = output.count
        var text = storedProfile
        let copied = text.withUTF8 { bytes in
            copy(user, from: StoredJSONText(bytes), profiles: profiles, passkeys: passkeys, to: &output)
        }
        if copied { return }
        // Text other software wrote, or values the copy does not take (fractions, escaped names): parsed and built.
        output.removeSubrange(start...)
        var parsed = user
        parsed.profile = StoredJSON.object(storedProfile) ?? [:]
        JSONWriter.write(record(parsed, profiles: profiles, passkeys: passkeys), to: &output)
    }

    /// `/entity`'s `attribute_name`: one attribute (or plural element) by path; a service attribute by name.
    public func attribute(_ text: String, of user: User) throws(CaptureError) -> JSONValue {
        let path = try EntityPath(parsing: text)
        if path.isRoot { return record(user) }
        if path.steps.count == 1, let step = path.steps.first, step.element == nil,
            EntitySchema.systemAttributes.contains(step.name), step.name != "password"
        {
            return record(user).objectMembers?[step.name] ?? .null
        }
        let value = try user.document(schema: schema, asUser: true).value(at: path)
        let definition: AttributeDefinition?
        do { definition = try schema.definition(at: path) } catch { throw .schemaViolation(error) }
        if path.steps.last?.element != nil, let definition {
            return .object(Self.rendered(value?.objectMembers, scope: definition.attributes, keepingID: value?.elementID))
        }
        return Self.rendered(value, definition: definition)
    }

    /// One of the service's own attributes as the record shows it.
    static func serviceValue(
        _ attribute: EntityServiceAttribute, of user: User, profiles: [LinkedIdentity], passkeys: [Passkey] = []
    ) -> JSONValue {
        switch attribute {
        case .email: .string(user.email)
        case .id: user.number.map(JSONValue.int) ?? .null
        case .uuid: .string(user.id)
        case .emailVerified, .created, .lastUpdated, .lastLogin:
            .optional(serviceDate(attribute, of: user).map(CaptureDate.format))
        case .profiles: linkedProfiles(profiles)
        case .passkeys: passkeyList(passkeys)
        }
    }

    /// The date behind a date attribute (`EntityServiceAttribute.isDate`); nil when there is none yet.
    static func serviceDate(_ attribute: EntityServiceAttribute, of user: User) -> Date? {
        switch attribute {
        case .emailVerified: user.emailVerifiedAt
        case .created: user.createdAt
        case .lastUpdated: user.updatedAt
        case .lastLogin: user.lastLoginAt
        case .email, .id, .uuid, .profiles, .passkeys: nil
        }
    }

    /// The record's `profiles`: the linked provider accounts.
    static func linkedProfiles(_ profiles: [LinkedIdentity]) -> JSONValue {
        .array(
            profiles.map { identity in
                [
                    "domain": .string(identity.provider), "identifier": .string(identity.identifier),
                    "email": .optional(identity.email), "created": .string(CaptureDate.format(identity.linkedAt)),
                    "lastUsed": .optional(identity.lastUsedAt.map(CaptureDate.format)),
                ]
            })
    }

    /// The record's `passkeys`: each one's id, name, creation and last use; never its key.
    public static func passkeyList(_ passkeys: [Passkey]) -> JSONValue {
        .array(passkeys.map(passkeyView))
    }

    public static func passkeyView(_ passkey: Passkey) -> JSONValue {
        [
            "id": .string(passkey.credentialID), "name": .string(passkey.name),
            "created": .string(CaptureDate.format(passkey.createdAt)),
            "lastUsed": .optional(passkey.lastUsedAt.map(CaptureDate.format)),
        ]
    }

    /// Every attribute of `scope`, present or null; the element's `id` kept.
    static func rendered(
        _ members: [String: JSONValue]?, scope: [String: AttributeDefinition], keepingID id: Int64? = nil
    ) -> [String: JSONValue] {
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
