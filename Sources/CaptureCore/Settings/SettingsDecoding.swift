import Foundation

/// Decodes a settings file and turns Foundation's errors into `SettingsError`s naming file and key.
enum SettingsDecoding {
    static func decode<T: Decodable>(_ type: T.Type, from url: URL) throws -> T {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw SettingsError(file: url.path, key: "(file)", problem: "cannot be read")
        }
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch let error as DecodingError {
            throw SettingsError(file: url.path, key: key(of: error), problem: problem(of: error))
        } catch {
            throw SettingsError(file: url.path, key: "(file)", problem: "is not valid JSON")
        }
    }

    private static func key(of error: DecodingError) -> String {
        let path: [any CodingKey]
        switch error {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            path = context.codingPath
        case .keyNotFound(let key, let context):
            path = context.codingPath + [key]
        @unknown default:
            path = []
        }
        if path.isEmpty { return "(file)" }
        return path.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            .trimmingCharacters(in: CharacterSet(charactersIn: "."))
            .replacingOccurrences(of: ".[", with: "[")
    }

    private static func problem(of error: DecodingError) -> String {
        switch error {
        case .typeMismatch(let type, _): "expected a value of type \(type)"
        case .valueNotFound(let type, _): "expected a value of type \(type), found null"
        case .keyNotFound: "is required"
        case .dataCorrupted(let context):
            context.codingPath.isEmpty ? "is not valid JSON" : context.debugDescription
        @unknown default: "is invalid"
        }
    }
}
