import CaptureJSON

/// Which record a server API call names: `uuid`, `id`, or `key_attribute` with a JSON-quoted `key_value` on the
/// address or a unique attribute (Janrain's `entity` selectors). Exactly one form.
public enum EntitySelector: Sendable, Equatable {
    case uuid(String)
    case number(Int64)
    /// A unique attribute's dot path (or `email`) and the text its index holds (`EntityDocument.uniqueText`).
    case key(attribute: String, text: String)

    public static let parameters: Set<String> = ["uuid", "id", "key_attribute", "key_value"]

    /// The selector `parameters` give; `missingArgument("uuid")` when none, `duplicateArgument`-style refusal when
    /// more than one form is given.
    public init(_ parameters: [String: String], schema: EntitySchema) throws(CaptureError) {
        let given = ["uuid", "id", "key_attribute"].filter { parameters[$0] != nil }
        guard given.count <= 1 else {
            throw .duplicateArgument(given[1], "give one of uuid, id or key_attribute, not several")
        }
        if let uuid = parameters["uuid"] {
            self = .uuid(uuid.lowercased())
        } else if let id = parameters["id"] {
            guard let number = Int64(id), number > 0 else { throw .invalidArgument("id", "must be a whole number above 0") }
            self = .number(number)
        } else if let attribute = parameters["key_attribute"] {
            guard let raw = parameters["key_value"] else { throw .missingArgument("key_value") }
            // Janrain's key_value is JSON: `"a@example.com"`, not the bare address.
            guard let value = try? JSONParser.parse(raw, limits: .standard) else {
                throw .invalidArgument("key_value", "must be JSON, such as \"a@example.com\" with its quotes")
            }
            let path: EntityPath
            do { path = try EntityPath(parsing: attribute) } catch { throw .invalidArgument("key_attribute", "is not a path") }
            if attribute == "email" {
                guard case .string(let address) = value else { throw .invalidArgument("key_value", "must be a string") }
                self = .key(attribute: "email", text: User.normalize(email: address))
                return
            }
            guard schema.uniquePaths.contains(path) else {
                throw .invalidArgument("key_attribute", "must be email or an attribute the schema marks unique")
            }
            guard let text = EntityDocument.uniqueText(of: value) else {
                throw .invalidArgument("key_value", "must be a string, number or boolean")
            }
            self = .key(attribute: path.description, text: text)
        } else {
            throw .missingArgument("uuid")
        }
    }
}

extension UserRepository {
    /// The record `selector` names, or `recordNotFound` (310).
    public func find(_ selector: EntitySelector) async throws -> User {
        let found: User?
        switch selector {
        case .uuid(let id): found = try await find(id: id)
        case .number(let number): found = try await find(number: number)
        case .key("email", let address): found = try await find(email: address)
        case .key(let attribute, let text): found = try await find(unique: attribute, text: text)
        }
        guard let found else { throw CaptureError.recordNotFound("record") }
        return found
    }
}
