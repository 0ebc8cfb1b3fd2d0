import CaptureJSON

/// The ids of an exported record's plural elements, which the import keeps: each a whole number above 0, none
/// used twice in the record (ids are the record's own, as `lastElementID` counts them).
enum PluralElementIDs {
    /// The largest id in the record (0 when none), so elements exported without one are numbered past it.
    static func largest(in members: [String: JSONValue], scope: [String: AttributeDefinition]) throws(SchemaViolation) -> Int64 {
        var seen: Set<Int64> = []
        try walk(members, scope: scope, path: EntityPath(steps: []), seen: &seen)
        return seen.max() ?? 0
    }

    private static func walk(
        _ members: [String: JSONValue], scope: [String: AttributeDefinition], path: EntityPath, seen: inout Set<Int64>
    ) throws(SchemaViolation) {
        for (name, value) in members.sorted(by: { $0.key < $1.key }) {
            guard let definition = scope[name] else { continue }
            let here = path.appending(name)
            switch (definition.type, value) {
            case (.object, .object(let inner)):
                try walk(inner, scope: definition.attributes, path: here, seen: &seen)
            case (.plural, .array(let elements)):
                for element in elements {
                    guard case .object(let inner) = element else { continue }
                    var elementPath = here
                    switch inner["id"] {
                    case nil, .null?: break
                    case .int(let id)? where id > 0:
                        guard seen.insert(id).inserted else {
                            throw SchemaViolation(
                                .unique, "\(here)#\(id)", "\(here): element id \(id) is used twice in the record")
                        }
                        elementPath = path.appending(name, element: id)
                    default:
                        throw SchemaViolation(
                            .invalidJSONType, "\(here).id", "\(here): an element's id must be a whole number above 0")
                    }
                    try walk(inner, scope: definition.attributes, path: elementPath, seen: &seen)
                }
            default: continue
            }
        }
    }
}
