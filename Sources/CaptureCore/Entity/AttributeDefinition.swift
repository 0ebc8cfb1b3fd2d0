import Foundation

/// One attribute of the entity schema (Settings/schema.json), in the spirit of Janrain's entity types: a type,
/// constraints, and for objects and plurals the attributes inside.
public struct AttributeDefinition: Sendable, Equatable, Decodable {
    public enum Kind: String, Sendable, Codable, CaseIterable {
        case string, boolean, integer, decimal, date, dateTime, email, object, plural

        public var isScalar: Bool { self != .object && self != .plural }
        var holdsText: Bool { self == .string || self == .email }
    }

    public var name: String = ""
    public var type: Kind
    public var required: Bool = false
    /// Most characters (Janrain's `length`).
    public var length: Int?
    public var minLength: Int?
    /// UTF-8 byte limit; without one, 4 bytes per allowed character, else `FieldDefinition.defaultMaxBytes`.
    public var maxBytes: Int?
    /// A regular expression the whole text must match.
    public var pattern: String?
    /// One of the form formats (`phone`, …) for text.
    public var format: FieldDefinition.Format?
    public var minimum: Double?
    public var maximum: Double?
    /// No two records may hold the same value (compared case-insensitively for text).
    public var unique: Bool = false
    /// Users cannot write it through their access token; operators and imports can.
    public var readOnly: Bool = false
    /// Storage keeps an index of its values, for `entity.find` filters and sorts on it (unique ones have one anyway).
    /// Optional in schema.json; a scalar outside any plural.
    public var indexed: Bool = false
    /// The attributes of an object, or of each element of a plural.
    public var attributes: [String: AttributeDefinition] = [:]

    enum CodingKeys: String, CodingKey {
        case type, required, length, minLength, maxBytes, pattern, format, minimum, maximum, unique, readOnly, indexed
        case attributes
    }

    public init(name: String, type: Kind, attributes: [String: AttributeDefinition] = [:]) {
        self.name = name
        self.type = type
        self.attributes = attributes
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        type = try container.decode(Kind.self, forKey: .type)
        required = try container.decodeIfPresent(Bool.self, forKey: .required) ?? false
        length = try container.decodeIfPresent(Int.self, forKey: .length)
        minLength = try container.decodeIfPresent(Int.self, forKey: .minLength)
        maxBytes = try container.decodeIfPresent(Int.self, forKey: .maxBytes)
        pattern = try container.decodeIfPresent(String.self, forKey: .pattern)
        format = try container.decodeIfPresent(FieldDefinition.Format.self, forKey: .format)
        minimum = try container.decodeIfPresent(Double.self, forKey: .minimum)
        maximum = try container.decodeIfPresent(Double.self, forKey: .maximum)
        unique = try container.decodeIfPresent(Bool.self, forKey: .unique) ?? false
        readOnly = try container.decodeIfPresent(Bool.self, forKey: .readOnly) ?? false
        indexed = try container.decodeIfPresent(Bool.self, forKey: .indexed) ?? false
        attributes = try container.decodeIfPresent([String: AttributeDefinition].self, forKey: .attributes) ?? [:]
        for (key, var child) in attributes {
            child.name = key
            attributes[key] = child
        }
    }

    public var byteLimit: Int { maxBytes ?? length.map { $0 * 4 } ?? FieldDefinition.defaultMaxBytes }
}
