import CaptureJSON

/// `capturectl migrate janrain --plan`: the source app's schema (`entityType`'s `attr_defs`) against this service's
/// (Settings/schema.json, as `entityType` shows it here), before anything is written. A source attribute this schema
/// lacks means records carrying a value for it are refused (or, with `--ignore-unknown`, imported without it); a type
/// that differs means values may be refused.
public struct SchemaComparison: Sendable, Equatable {
    public struct Difference: Sendable, Equatable, CustomStringConvertible {
        public enum Kind: String, Sendable {
            /// In the source, not here.
            case missingHere = "missing here"
            /// Here, not in the source (empty in every imported record).
            case onlyHere = "only here"
            case typeDiffers = "type differs"
        }

        public var kind: Kind
        /// Dot path (`primaryAddress.city`).
        public var path: String
        public var sourceType: String?
        public var localType: String?

        public var description: String {
            switch kind {
            case .missingHere: "\(path): missing here (source type \(sourceType ?? "?"))"
            case .onlyHere: "\(path): only here (type \(localType ?? "?"))"
            case .typeDiffers: "\(path): type differs (source \(sourceType ?? "?"), here \(localType ?? "?"))"
            }
        }
    }

    public var differences: [Difference]

    /// Janrain's attributes this service keeps elsewhere than in the schema: `profiles` become linked provider
    /// accounts, `password` any of Janrain's hash types.
    static let carriedApart: Set<String> = ["profiles", "passkeys"]

    public init(source attributes: [JSONValue], schema: EntitySchema) {
        differences = []
        compare(attributes, EntityTypeDocument.attributes(of: schema), prefix: "")
    }

    private mutating func compare(_ source: [JSONValue], _ local: [JSONValue], prefix: String) {
        let theirs = Self.byName(source)
        let ours = Self.byName(local)
        for name in theirs.keys.sorted() {
            let path = prefix + name
            let sourceType = theirs[name]?["type"]?.stringValue
            if prefix.isEmpty && Self.carriedApart.contains(name) { continue }
            guard let mine = ours[name] else {
                differences.append(Difference(kind: .missingHere, path: path, sourceType: sourceType, localType: nil))
                continue
            }
            let localType = mine["type"]?.stringValue
            // Any of Janrain's password-* types is a hash format the import reads (ImportedPasswordHash).
            let bothPasswords = (sourceType?.hasPrefix("password") ?? false) && (localType?.hasPrefix("password") ?? false)
            if sourceType != localType && !bothPasswords {
                differences.append(Difference(kind: .typeDiffers, path: path, sourceType: sourceType, localType: localType))
                continue
            }
            if case .array(let inner)? = theirs[name]?["attr_defs"] {
                let mineInner = mine["attr_defs"]?.arrayElements ?? []
                compare(inner, mineInner, prefix: path + ".")
            }
        }
        for name in ours.keys.sorted() where theirs[name] == nil {
            differences.append(
                Difference(kind: .onlyHere, path: prefix + name, sourceType: nil, localType: ours[name]?["type"]?.stringValue))
        }
    }

    private static func byName(_ definitions: [JSONValue]) -> [String: [String: JSONValue]] {
        var result: [String: [String: JSONValue]] = [:]
        for case .object(let members) in definitions {
            if let name = members["name"]?.stringValue { result[name] = members }
        }
        return result
    }
}
