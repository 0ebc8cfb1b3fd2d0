import Foundation

/// `/entity.update` as Janrain's SDKs send it: jump.ios puts a JSON object in `attributes` (and may add
/// `include_record`), jump.android puts it in `value`; either may name one attribute in `attribute_name`
/// (`displayName` or `/displayName`), and then the JSON is that attribute's new value.
///
/// The JSON is untrusted, so it is read by `JSONParser` within `jsonLimits`; build this only after the access
/// token has been checked (`CaptureService.updateEntity(accessToken:parameters:)` does), so an anonymous caller
/// never gets the parser to work for it.
public struct EntityUpdateRequest: Sendable, Equatable {
    public static let parameters: Set<String> = [
        "access_token", "client_id", "type_name", "attributes", "value", "attribute_name", "include_record",
    ]

    /// A profile has a handful of short attributes; these leave room for that and refuse anything much larger.
    public static let jsonLimits = JSONParser.Limits.standard

    /// Top-level profile attributes to write.
    public var attributes: [String: JSONValue]

    public init(parameters: [String: String]) throws {
        if parameters["attributes"] != nil && parameters["value"] != nil {
            throw CaptureError.invalidArgument("value", "send either attributes or value, not both")
        }
        let name = parameters["value"] != nil ? "value" : "attributes"
        guard let raw = parameters[name] else { throw CaptureError.missingArgument("attributes") }
        let decoded = try Self.parse(raw, naming: name)
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
