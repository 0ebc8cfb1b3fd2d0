import CaptureCore

/// A schema with an attribute of every kind a filter compares, for the filter tests: text, numbers, a boolean, a
/// date and a date-time, objects (one nested), a plural, a unique attribute and an `indexed` one.
public enum FilterSchema {
    public static var schema: EntitySchema {
        func attribute(
            _ name: String, _ type: AttributeDefinition.Kind, _ attributes: [AttributeDefinition] = []
        )
            -> AttributeDefinition
        {
            AttributeDefinition(
                name: name, type: type, attributes: Dictionary(uniqueKeysWithValues: attributes.map { ($0.name, $0) }))
        }
        var email = attribute("email", .email)
        email.required = true
        var memberCode = attribute("memberCode", .string)
        memberCode.unique = true
        var score = attribute("score", .integer)
        score.indexed = true
        let all = [
            email, memberCode, score, attribute("gender", .string), attribute("displayName", .string),
            attribute("age", .integer), attribute("height", .decimal), attribute("birthday", .date),
            attribute("newsletter", .boolean), attribute("seen", .dateTime),
            attribute(
                "primaryAddress", .object,
                [
                    attribute("city", .string), attribute("zip", .string),
                    attribute("geo", .object, [attribute("lat", .decimal)]),
                ]),
            attribute("optIn", .object, [attribute("status", .boolean), attribute("updated", .dateTime)]),
            attribute("photos", .plural, [attribute("value", .string)]),
        ]
        return EntitySchema(attributes: Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) }))
    }
}
