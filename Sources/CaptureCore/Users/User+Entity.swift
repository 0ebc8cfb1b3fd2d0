import Foundation

/// The profile attributes a form field or `entity.update` may write, by Capture attribute name.
public enum ProfileAttribute: String, CaseIterable, Sendable {
    case email, displayName, givenName, familyName, birthday, phone
}

extension User {
    /// The Capture entity record (Janrain attribute names) returned by `/entity` and in `capture_user`.
    public var entity: JSONValue {
        .object([
            "uuid": .string(id),
            "email": .string(email),
            "displayName": .optional(displayName),
            "givenName": .optional(givenName),
            "familyName": .optional(familyName),
            "birthday": .optional(birthday),
            "phone": .optional(phone),
            "emailVerified": .optional(emailVerifiedAt.map(CaptureDate.format)),
            "created": .string(CaptureDate.format(createdAt)),
            "lastUpdated": .string(CaptureDate.format(updatedAt)),
            "lastLogin": .optional(lastLoginAt.map(CaptureDate.format)),
        ])
    }

    /// `/entity`'s `attribute_name`: one top-level attribute, written `name` or Janrain's `/name`.
    public func entityAttribute(_ path: String) throws -> JSONValue {
        let name = path.hasPrefix("/") ? String(path.dropFirst()) : path
        guard case .object(let record) = entity, let value = record[name] else {
            throw CaptureError.invalidArgument("attribute_name", "'\(path)' is not an attribute of the user record")
        }
        return value
    }

    public func value(of attribute: ProfileAttribute) -> String? {
        switch attribute {
        case .email: email
        case .displayName: displayName
        case .givenName: givenName
        case .familyName: familyName
        case .birthday: birthday
        case .phone: phone
        }
    }

    /// Empty strings clear optional attributes.
    public mutating func set(_ attribute: ProfileAttribute, to value: String) {
        let optional: String? = value.isEmpty ? nil : value
        switch attribute {
        case .email: email = User.normalize(email: value)
        case .displayName: displayName = optional
        case .givenName: givenName = optional
        case .familyName: familyName = optional
        case .birthday: birthday = optional
        case .phone: phone = optional
        }
    }
}
