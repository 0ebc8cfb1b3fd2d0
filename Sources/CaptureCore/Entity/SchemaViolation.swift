/// A value the entity schema refuses, with Janrain's code for the kind of refusal and the attribute's path.
public struct SchemaViolation: Error, Equatable, Sendable {
    public enum Kind: Sendable, Equatable {
        case unknownAttribute, invalidJSONType, invalidDateTime, invalidDataFormat, constraint, unique, required, length
    }

    public var kind: Kind
    /// Dot path of the attribute (`primaryAddress.city`, `photos#3.value`).
    public var path: String
    public var message: String

    public init(_ kind: Kind, _ path: String, _ message: String) {
        self.kind = kind
        self.path = path
        self.message = message
    }

    /// Janrain's codes: 223 for an attribute the schema lacks; 340–359 data type, 360–379 constraint errors.
    public var code: Int {
        switch kind {
        case .unknownAttribute: 223
        case .invalidDataFormat: 340
        case .invalidJSONType: 341
        case .invalidDateTime: 342
        case .constraint: 360
        case .unique: 361
        case .required: 362
        case .length: 363
        }
    }

    public var error: String {
        switch kind {
        case .unknownAttribute: "unknown_attribute"
        case .invalidDataFormat: "invalid_data_format"
        case .invalidJSONType: "invalid_json_type"
        case .invalidDateTime: "invalid_date_time"
        case .constraint: "constraint_violation"
        case .unique: "unique_violation"
        case .required: "missing_required_attribute"
        case .length: "length_violation"
        }
    }
}
