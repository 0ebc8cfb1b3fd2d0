import CaptureJSON
import Foundation

/// `/entity.update`, `/entity.replace` and `/entity.delete` as Janrain's SDKs send them: jump.ios puts the JSON
/// in `attributes` (and adds `include_record`), jump.android in `value`; `attribute_name` names where in the
/// record (`/primaryAddress`, `/photos#3`, `primaryAddress.city`), and then the JSON is the new value there.
///
/// The JSON is untrusted, so it is read by `JSONParser` within `jsonLimits`; build this only after the access
/// token has been checked (`ProfileService.changeEntity` does), so an anonymous caller never gets the parser to
/// work for it.
public struct EntityChangeRequest: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case update, replace, delete
    }

    /// `current_password` and `second_factor_code` (ours, `StepUpProof`) stand in for a recent sign-in when the
    /// change moves the address.
    public static let parameters = Set([
        "access_token", "client_id", "type_name", "attributes", "value", "attribute_name", "include_record",
    ]).union(StepUpProof.parameters)

    /// A profile update leaves room for a full record and refuses anything much larger.
    public static let jsonLimits = JSONParser.Limits.standard

    public var kind: Kind
    public var path: EntityPath
    /// The new value at `path` (nil for a delete).
    public var value: JSONValue?

    public init(_ kind: Kind, parameters: [String: String]) throws {
        self.kind = kind
        path = try EntityPath(parsing: parameters["attribute_name"] ?? "")
        if kind == .delete {
            if parameters["attributes"] != nil || parameters["value"] != nil {
                throw CaptureError.invalidArgument("value", "entity.delete takes only attribute_name")
            }
            guard !path.isRoot else { throw CaptureError.missingArgument("attribute_name") }
            value = nil
            return
        }
        if parameters["attributes"] != nil && parameters["value"] != nil {
            throw CaptureError.invalidArgument("value", "send either attributes or value, not both")
        }
        let name = parameters["value"] != nil ? "value" : "attributes"
        guard let raw = parameters[name] else { throw CaptureError.missingArgument("attributes") }
        let decoded = try Self.parse(raw, naming: name)
        if path.isRoot, case .object = decoded {
        } else if path.isRoot {
            throw CaptureError.invalidArgument(name, "must be a JSON object")
        }
        value = decoded
    }

    /// Both kinds of refusal are 400s naming the parameter (the request cannot be read as sent); the message
    /// says whether the JSON is broken or merely larger than this service accepts, and where.
    static func parse(_ raw: String, naming name: String) throws(CaptureError) -> JSONValue {
        do {
            return try JSONParser.parse(raw, limits: jsonLimits)
        } catch {
            switch error {
            case .invalid: throw .malformedRequest(name, "is not valid JSON: \(error.message)")
            case .limitExceeded: throw .malformedRequest(name, "exceeds the JSON limits: \(error.message)")
            }
        }
    }
}
