import CaptureJSON

/// `attributes` on a read: the JSON list of attribute names or dot paths the reply keeps (`["email",
/// "primaryAddress.city"]`); nested values keep their place in the record.
struct AttributeSelection: Sendable, Equatable {
    var paths: [[String]]

    /// Nil when the parameter is absent; a 200-range error when it is not a JSON list of paths.
    init?(_ raw: String?) throws {
        guard let raw else { return nil }
        let parsed: JSONValue
        do { parsed = try JSONParser.parse(raw, limits: .standard) } catch {
            throw CaptureError.invalidArgument("attributes", "is not valid JSON: \(error.message)")
        }
        guard case .array(let items) = parsed, !items.isEmpty else {
            throw CaptureError.invalidArgument("attributes", "must be a JSON list of attribute names")
        }
        paths = try items.map { item in
            guard case .string(let text) = item else {
                throw CaptureError.invalidArgument("attributes", "must be a JSON list of attribute names")
            }
            let path = try EntityPath(parsing: text, argument: "attributes")
            guard !path.isRoot, path.steps.allSatisfy({ $0.element == nil }) else {
                throw CaptureError.invalidArgument("attributes", "'\(text)' is not an attribute name")
            }
            return path.steps.map(\.name)
        }
    }

    /// `record` with only the selected attributes (an absent one is null).
    func apply(to record: JSONValue) -> JSONValue {
        var picked: [String: JSONValue] = [:]
        for path in paths { Self.copy(path[...], from: record, into: &picked) }
        return .object(picked)
    }

    private static func copy(_ path: ArraySlice<String>, from value: JSONValue, into picked: inout [String: JSONValue]) {
        guard let name = path.first else { return }
        let inner = value.objectMembers?[name] ?? .null
        if path.count == 1 {
            picked[name] = inner
            return
        }
        var nested = picked[name]?.objectMembers ?? [:]
        copy(path.dropFirst(), from: inner, into: &nested)
        picked[name] = .object(nested)
    }
}
