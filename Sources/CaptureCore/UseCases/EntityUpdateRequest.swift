import Foundation

/// `/entity.update` as Janrain's SDKs send it: jump.ios puts a JSON object in `attributes` (and may add
/// `include_record`), jump.android puts it in `value`; either may name one attribute in `attribute_name`
/// (`displayName` or `/displayName`), and then the JSON is that attribute's new value.
public struct EntityUpdateRequest: Sendable, Equatable {
    public static let parameters: Set<String> = [
        "access_token", "client_id", "type_name", "attributes", "value", "attribute_name", "include_record",
    ]

    /// Top-level profile attributes to write.
    public var attributes: [String: JSONValue]

    public init(parameters: [String: String]) throws {
        if parameters["attributes"] != nil && parameters["value"] != nil {
            throw CaptureError.invalidArgument("value", "send either attributes or value, not both")
        }
        let name = parameters["value"] != nil ? "value" : "attributes"
        guard let raw = parameters[name] else { throw CaptureError.missingArgument("attributes") }
        guard let decoded = try? JSONDecoder().decode(JSONValue.self, from: Data(raw.utf8)) else {
            throw CaptureError.malformedRequest(name, "is not valid JSON")
        }
        let path = (parameters["attribute_name"] ?? "").trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        if path.isEmpty {
            guard case .object(let object) = decoded else { throw CaptureError.invalidArgument(name, "must be a JSON object") }
            attributes = object
        } else {
            guard !path.contains("/"), ProfileAttribute(rawValue: path) != nil else {
                throw CaptureError.invalidArgument("attribute_name", "'\(path)' is not a writable attribute")
            }
            attributes = [path: decoded]
        }
    }
}
