extension User {
    /// `entity(schema:profiles:)` as JSON, written straight into `output` from the stored profile along the
    /// schema's `EntityLayout`: the same bytes `JSONWriter` writes for the built record, without building it,
    /// hashing its keys and sorting them on every `/entity`.
    public func writeEntity(schema: EntitySchema, profiles: [LinkedIdentity], to output: inout [UInt8]) {
        output.append(UInt8(ascii: "{"))
        for (index, member) in schema.layout.members.enumerated() {
            Self.writeKey(member.name, first: index == 0, to: &output)
            if let definition = member.definition {
                Self.write(profile[member.name], definition: definition, layout: member.nested, to: &output)
            } else {
                writeServiceAttribute(member.name, profiles: profiles, to: &output)
            }
        }
        output.append(UInt8(ascii: "}"))
    }

    private func writeServiceAttribute(_ name: String, profiles: [LinkedIdentity], to output: inout [UInt8]) {
        let value: JSONValue
        switch name {
        case "email": value = .string(email)
        case "id": value = number.map(JSONValue.int) ?? .null
        case "uuid": value = .string(id)
        case "emailVerified": value = .optional(emailVerifiedAt.map(CaptureDate.format))
        case "created": value = .string(CaptureDate.format(createdAt))
        case "lastUpdated": value = .string(CaptureDate.format(updatedAt))
        case "lastLogin": value = .optional(lastLoginAt.map(CaptureDate.format))
        case "profiles": value = Self.entityProfiles(profiles)
        default: value = .null
        }
        JSONWriter.write(value, to: &output)
    }

    /// `rendered(_:definition:)` written out.
    private static func write(
        _ value: JSONValue?, definition: AttributeDefinition, layout: EntityLayout?, to output: inout [UInt8]
    ) {
        switch (definition.type, layout) {
        case (.object, let layout?):
            writeObject(value?.objectMembers, layout: layout, id: nil, to: &output)
        case (.plural, let layout?):
            output.append(UInt8(ascii: "["))
            for (index, element) in (value?.arrayElements ?? []).enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                writeObject(element.objectMembers, layout: layout, id: element.elementID, to: &output)
            }
            output.append(UInt8(ascii: "]"))
        default:
            JSONWriter.write(value ?? .null, to: &output)
        }
    }

    /// `rendered(_:scope:keepingID:)` written out: every attribute of the scope, and the element's `id` in its place.
    private static func writeObject(_ members: [String: JSONValue]?, layout: EntityLayout, id: Int64?, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "{"))
        var first = true
        for (index, member) in layout.members.enumerated() {
            if let id, index == layout.idPosition {
                writeKey("id", first: first, to: &output)
                JSONWriter.write(.int(id), to: &output)
                first = false
            }
            writeKey(member.name, first: first, to: &output)
            first = false
            if let definition = member.definition {
                write(members?[member.name], definition: definition, layout: member.nested, to: &output)
            }
        }
        if let id, layout.idPosition == layout.members.count {
            writeKey("id", first: first, to: &output)
            JSONWriter.write(.int(id), to: &output)
        }
        output.append(UInt8(ascii: "}"))
    }

    private static func writeKey(_ name: String, first: Bool, to output: inout [UInt8]) {
        if !first { output.append(UInt8(ascii: ",")) }
        JSONWriter.writeString(name, to: &output)
        output.append(UInt8(ascii: ":"))
    }
}
