import CaptureJSON

/// The JSON text Janrain's server API takes inside form fields (`features`, `has_features`, `whitelist`, `keys`,
/// `items`), read with the parser's bounds. Text that is not the JSON asked for is Janrain's 200 `invalid_argument`
/// naming the field.
enum ServerArguments {
    /// A present, non-empty argument; else Janrain's 100 `missing_argument`.
    static func required(_ value: String?, _ argument: String) throws -> String {
        guard let value, !value.isEmpty else { throw CaptureError.missingArgument(argument) }
        return value
    }

    /// A JSON list of strings, such as `["owner","direct_access"]`.
    static func strings(_ text: String, _ argument: String) throws -> [String] {
        guard case .array(let items) = try parse(text, argument) else {
            throw CaptureError.invalidArgument(argument, "must be a JSON list of strings")
        }
        guard items.count <= ClientSettingRules.maxItems else {
            throw CaptureError.invalidArgument(argument, "must name at most \(ClientSettingRules.maxItems) items")
        }
        return try items.map { item in
            guard case .string(let text) = item else {
                throw CaptureError.invalidArgument(argument, "must be a JSON list of strings")
            }
            return text
        }
    }

    /// A JSON object of strings, such as `{"site_name":"Example"}`.
    static func stringObject(_ text: String, _ argument: String) throws -> [String: String] {
        guard case .object(let members) = try parse(text, argument) else {
            throw CaptureError.invalidArgument(argument, "must be a JSON object whose values are strings")
        }
        guard members.count <= ClientSettingRules.maxItems else {
            throw CaptureError.invalidArgument(argument, "must name at most \(ClientSettingRules.maxItems) items")
        }
        return try members.mapValues { value in
            guard case .string(let text) = value else {
                throw CaptureError.invalidArgument(argument, "must be a JSON object whose values are strings")
            }
            return text
        }
    }

    /// Janrain's features by name (`ClientFeature`), from a JSON list.
    static func features(_ text: String, _ argument: String) throws -> Set<ClientFeature> {
        try ClientFeature.parsed(try strings(text, argument), argument: argument)
    }

    private static func parse(_ text: String, _ argument: String) throws -> JSONValue {
        do {
            return try JSONParser.parse(text)
        } catch {
            throw CaptureError.invalidArgument(argument, "the JSON is not syntactically valid")
        }
    }
}
