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

    /// `writeEntity` for a user read without its profile, from the profile's stored text (`TokenLookup.storedProfile`):
    /// the values are copied as stored where the text is as `JSONWriter` wrote it (`StoredJSONText`), which gives the
    /// same bytes without building them; other text is parsed first, as a read would have.
    public func writeEntity(schema: EntitySchema, profiles: [LinkedIdentity], storedProfile: String, to output: inout [UInt8]) {
        let start = output.count
        var text = storedProfile
        let copied = text.withUTF8 { bytes in
            writeEntity(schema: schema, profiles: profiles, stored: StoredJSONText(bytes), to: &output)
        }
        if copied { return }
        output.removeSubrange(start...)
        var parsed = self
        parsed.profile = StoredJSON.object(storedProfile) ?? [:]
        parsed.writeEntity(schema: schema, profiles: profiles, to: &output)
    }

    /// The stored text's side of `writeEntity(schema:profiles:storedProfile:to:)`; false when the text is not one it
    /// copies from (what it wrote is then to be dropped).
    func writeEntity(schema: EntitySchema, profiles: [LinkedIdentity], stored: StoredJSONText, to output: inout [UInt8]) -> Bool {
        var stored = stored
        guard let top = stored.wholeObject() else { return false }
        var finder = MemberFinder(members: top)
        output.append(UInt8(ascii: "{"))
        for (index, member) in schema.layout.members.enumerated() {
            Self.writeKey(member.name, first: index == 0, to: &output)
            if let definition = member.definition {
                let value = finder.value(named: member.name, in: stored)
                guard Self.write(value, of: stored, definition: definition, layout: member.nested, to: &output) else {
                    return false
                }
            } else {
                writeServiceAttribute(member.name, profiles: profiles, to: &output)
            }
        }
        output.append(UInt8(ascii: "}"))
        return true
    }

    /// Finds members by name, looking on from the last one found: the layout and the stored text are both in
    /// ascending order, so a whole object is one pass.
    private struct MemberFinder {
        let members: [StoredJSONText.Member]
        var next = 0

        mutating func value(named name: String, in stored: StoredJSONText) -> Range<Int>? {
            for offset in 0..<members.count {
                let index = (next + offset) % members.count
                if stored.name(at: members[index].name, is: name) {
                    next = index + 1
                    return members[index].value
                }
            }
            return nil
        }
    }

    /// `write(_:definition:layout:to:)` from a stored value's bytes (`nil`: absent).
    private static func write(
        _ value: Range<Int>?, of stored: StoredJSONText, definition: AttributeDefinition, layout: EntityLayout?,
        to output: inout [UInt8]
    ) -> Bool {
        switch (definition.type, layout) {
        case (.object, let layout?):
            return writeObject(value.flatMap { stored.members(ofObjectAt: $0.lowerBound) } ?? [], of: stored, layout: layout, id: nil, to: &output)
        case (.plural, let layout?):
            output.append(UInt8(ascii: "["))
            for (index, element) in (value.flatMap { stored.elements(ofArrayAt: $0.lowerBound) } ?? []).enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                let members = stored.members(ofObjectAt: element.lowerBound) ?? []
                var finder = MemberFinder(members: members)
                let id = finder.value(named: "id", in: stored).flatMap(stored.integer(at:))
                guard writeObject(members, of: stored, layout: layout, id: id, to: &output) else { return false }
            }
            output.append(UInt8(ascii: "]"))
            return true
        default:
            if let value { output.append(contentsOf: stored.bytes[value]) } else { output.append(contentsOf: "null".utf8) }
            return true
        }
    }

    /// `writeObject(_:layout:id:to:)` from a stored object's members.
    private static func writeObject(
        _ members: [StoredJSONText.Member], of stored: StoredJSONText, layout: EntityLayout, id: Int64?, to output: inout [UInt8]
    ) -> Bool {
        var finder = MemberFinder(members: members)
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
            guard let definition = member.definition,
                write(finder.value(named: member.name, in: stored), of: stored, definition: definition, layout: member.nested, to: &output)
            else { return false }
        }
        if let id, layout.idPosition == layout.members.count {
            writeKey("id", first: first, to: &output)
            JSONWriter.write(.int(id), to: &output)
        }
        output.append(UInt8(ascii: "}"))
        return true
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
