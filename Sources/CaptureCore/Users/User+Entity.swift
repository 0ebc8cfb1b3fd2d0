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

/// Janrain's UTC timestamp format, `yyyy-MM-dd HH:mm:ss.SSSSSS +0000`.
public enum CaptureDate {
    /// Formatted by hand from `gmtime_r`: a `DateFormatter` per call costs more than the rest of a request.
    public static func format(_ date: Date) -> String {
        let interval = date.timeIntervalSince1970
        var seconds = time_t(interval.rounded(.down))
        // Millisecond precision, as the database keeps dates (GRDB), so a record reads the same before and after
        // it is stored; the 0.5 µs allowance absorbs floating-point error in dates read back from storage.
        let millis = min(Int(((interval - Double(seconds)) * 1000 + 0.0005).rounded(.down)), 999)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(
            format: "%04d-%02d-%02d %02d:%02d:%02d.%06d +0000", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
            Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec), millis * 1000)
    }
}
