import CaptureJSON

/// How storage keeps a JSON object (a user's profile, a provider's claims): as compact JSON text, read back within
/// generous limits. Rows were written by this service, but an operator may edit them: text that is not a JSON object
/// reads as nil. The same on every backend.
public enum StoredJSON {
    static let limits = JSONParser.Limits(
        maxInputBytes: 1 << 20, maxDepth: 32, maxValues: 100_000, maxStringBytes: 1 << 20, maxNumberBytes: 64)

    public static func text(_ object: [String: JSONValue]) -> String {
        String(decoding: JSONValue.object(object).encodedBytes(), as: UTF8.self)
    }

    public static func object(_ text: String) -> [String: JSONValue]? {
        guard case .object(let members) = try? JSONParser.parse(text, limits: limits) else { return nil }
        return members
    }
}
