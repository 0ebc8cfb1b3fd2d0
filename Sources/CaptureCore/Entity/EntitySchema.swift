import CaptureJSON
import Foundation

/// The record's shape (Settings/schema.json): every attribute a user record may hold besides the ones the
/// service itself keeps (`systemAttributes`). Values live in one JSON document per user, so adding an attribute
/// here needs no code and no migration.
public struct EntitySchema: Sendable, Equatable {
    public var attributes: [String: AttributeDefinition] {
        didSet { layout = Self.layout(attributes) }
    }
    /// The record as `/entity` writes it (`EntityEncoder.write`).
    private(set) var layout: EntityLayout

    /// Kept by the service, shown in every record, written by nobody through the API.
    public static let systemAttributes: Set<String> = [
        "id", "uuid", "created", "lastUpdated", "emailVerified", "lastLogin", "password", "profiles", "passkeys",
    ]
    /// Objects and plurals nest at most this deep.
    public static let maxDepth = 4

    public init(attributes: [String: AttributeDefinition]) {
        self.attributes = attributes
        layout = Self.layout(attributes)
    }

    private static func layout(_ attributes: [String: AttributeDefinition]) -> EntityLayout {
        EntityLayout(scope: attributes, service: true)
    }

    public static func == (lhs: EntitySchema, rhs: EntitySchema) -> Bool { lhs.attributes == rhs.attributes }

    /// The least a record holds, for tools run without a settings directory.
    public static var emailOnly: EntitySchema {
        var email = AttributeDefinition(name: "email", type: .email)
        email.required = true
        email.length = 254
        return EntitySchema(attributes: ["email": email])
    }

    /// The definition at `path` (nil for the whole record). Element ids are not checked here.
    public func definition(at path: EntityPath) throws(SchemaViolation) -> AttributeDefinition? {
        var scope = attributes
        var found: AttributeDefinition?
        var walked = EntityPath(steps: [])
        for step in path.steps {
            walked = walked.appending(step.name, element: step.element)
            guard let definition = scope[step.name] else {
                throw SchemaViolation(.unknownAttribute, walked.description, "'\(walked)' is not an attribute of the user record")
            }
            if step.element != nil && definition.type != .plural {
                throw SchemaViolation(.unknownAttribute, walked.description, "'\(step.name)' is not a plural")
            }
            found = definition
            scope = definition.attributes
        }
        return found
    }

    /// Dot paths of the attributes whose values must be unique across records (`email` has its own column).
    public var uniquePaths: [EntityPath] {
        func walk(_ scope: [String: AttributeDefinition], _ prefix: EntityPath) -> [EntityPath] {
            scope.values.sorted { $0.name < $1.name }.flatMap { definition -> [EntityPath] in
                let path = prefix.appending(definition.name)
                if definition.type == .object { return walk(definition.attributes, path) }
                return definition.unique && definition.name != "email" ? [path] : []
            }
        }
        return walk(attributes, EntityPath(steps: []))
    }
}

extension EntitySchema {
    /// The profile attributes storage indexes for filters and sorts (`entity.find`): the scalars outside plurals
    /// marked `unique` or `indexed` (`email` has its own column), as the filter names them, in path order.
    public var indexedFilterFields: [ProfileField] {
        func walk(_ scope: [String: AttributeDefinition], _ prefix: [String]) -> [ProfileField] {
            scope.values.sorted { $0.name < $1.name }.flatMap { definition -> [ProfileField] in
                let names = prefix + [definition.name]
                if definition.type == .object { return walk(definition.attributes, names) }
                guard definition.type.isScalar, definition.unique || definition.indexed,
                    names != ["email"],
                    let field = try? FilterResolver(schema: self).field(
                        names.joined(separator: "."), at: nil, argument: "schema"),
                    case .profile(let profile) = field
                else { return [] }
                return [profile]
            }
        }
        return walk(attributes, [])
    }
}

/// The on-disk shape of `schema.json`.
struct SchemaFile: Decodable {
    var attributes: [String: AttributeDefinition]
}

extension EntitySchema {
    public static func load(from url: URL) throws -> EntitySchema {
        let file = try SettingsDecoding.decode(SchemaFile.self, from: url)
        var attributes = file.attributes
        for (name, var definition) in attributes {
            definition.name = name
            attributes[name] = definition
        }
        let schema = EntitySchema(attributes: attributes)
        try schema.check(file: url.path)
        return schema
    }

    /// Refuses a schema the service could not keep its promises with, naming the key.
    func check(file: String) throws {
        func fail(_ key: String, _ problem: String) -> SettingsError {
            SettingsError(file: file, key: key, problem: problem)
        }
        guard let email = attributes["email"], email.type == .email, email.required else {
            throw fail("attributes.email", "must exist, with type email and required true (people sign in with it)")
        }
        func walk(_ scope: [String: AttributeDefinition], key: String, depth: Int, inPlural: Bool) throws {
            for definition in scope.values.sorted(by: { $0.name < $1.name }) {
                let here = "\(key).\(definition.name)"
                guard EntityPath.isName(definition.name) else {
                    throw fail(here, "a name is a letter then letters, digits or _ (at most 64)")
                }
                if depth == 0 && Self.systemAttributes.contains(definition.name) {
                    throw fail(here, "'\(definition.name)' is kept by the service and cannot be defined")
                }
                if inPlural && definition.name == "id" { throw fail(here, "plural elements carry their own id") }
                if definition.type.isScalar {
                    guard definition.attributes.isEmpty else { throw fail(here, "only object and plural hold attributes") }
                } else {
                    guard !definition.attributes.isEmpty else {
                        throw fail(here, "an \(definition.type.rawValue) needs attributes")
                    }
                    guard depth + 1 < Self.maxDepth else { throw fail(here, "nests deeper than \(Self.maxDepth) levels") }
                    guard !definition.unique else { throw fail(here, "only a single value can be unique") }
                }
                if definition.unique && inPlural { throw fail(here, "a value inside a plural cannot be unique") }
                if definition.indexed && (inPlural || !definition.type.isScalar) {
                    throw fail(here, "only a single value outside a plural can be indexed")
                }
                if let pattern = definition.pattern {
                    guard definition.type.holdsText, (try? NSRegularExpression(pattern: pattern)) != nil else {
                        throw fail(here, "pattern must be a valid regular expression on a string attribute")
                    }
                }
                if let length = definition.length, length < 1 { throw fail(here, "length must be at least 1") }
                if definition.type.holdsText && definition.byteLimit > JSONParser.Limits.standard.maxStringBytes {
                    throw fail(
                        here, "may hold at most \(JSONParser.Limits.standard.maxStringBytes) bytes (length × 4, or maxBytes)")
                }
                try walk(
                    definition.attributes, key: "\(here).attributes", depth: depth + 1,
                    inPlural: inPlural || definition.type == .plural)
            }
        }
        try walk(attributes, key: "attributes", depth: 0, inPlural: false)
    }
}
