import CaptureJSON

/// `entityType`'s `attr_defs`: the service's own attributes, then the schema's, in Janrain's shape (`name`, `type`,
/// `length`, `constraints`, and `attr_defs` inside objects and plurals).
enum EntityTypeDocument {
    static let serviceAttributes: [(String, String)] = [
        ("id", "id"), ("uuid", "uuid"), ("created", "dateTime"), ("lastUpdated", "dateTime"), ("lastLogin", "dateTime"),
        ("emailVerified", "dateTime"), ("password", "password-bcrypt"),
    ]

    static func attributes(of schema: EntitySchema) -> [JSONValue] {
        serviceAttributes.map { name, type in ["name": .string(name), "type": .string(type)] }
            + definitions(schema.attributes)
    }

    static func definitions(_ scope: [String: AttributeDefinition]) -> [JSONValue] {
        scope.values.sorted { $0.name < $1.name }.map { definition in
            var fields: [String: JSONValue] = [
                "name": .string(definition.name), "type": .string(definition.type.rawValue),
            ]
            if let length = definition.length { fields["length"] = .int(Int64(length)) }
            var constraints: [JSONValue] = []
            if definition.required { constraints.append("required") }
            if definition.unique { constraints.append("unique") }
            if definition.readOnly { constraints.append("read-only") }
            if !constraints.isEmpty { fields["constraints"] = .array(constraints) }
            if !definition.attributes.isEmpty { fields["attr_defs"] = .array(definitions(definition.attributes)) }
            return .object(fields)
        }
    }
}
