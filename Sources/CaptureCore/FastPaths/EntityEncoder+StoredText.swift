import CaptureJSON

/// `EntityEncoder.write` from the profile's stored text, along the schema's `EntityLayout`: each member's bytes copied
/// where they lie, giving the bytes `JSONWriter` writes for the built record without building it, hashing its keys
/// and sorting them on every `/entity` (docs/performance.md). `EntityJSONTests` holds the two byte for byte equal.
extension EntityEncoder {
    /// The record written from `stored`; false when the text is not one it copies from (what it wrote is then to be
    /// dropped, and the record built instead).
    func copy(
        _ user: User, from stored: StoredJSONText, profiles: [LinkedIdentity], passkeys: [Passkey] = [],
        to output: inout [UInt8]
    ) -> Bool {
        var stored = stored
        guard let top = stored.wholeObject() else { return false }
        var finder = MemberFinder(members: top)
        output.append(UInt8(ascii: "{"))
        for (index, member) in schema.layout.members.enumerated() {
            Self.writeKey(member, first: index == 0, to: &output)
            if case .service(let attribute) = member.content {
                Self.writeServiceAttribute(attribute, of: user, profiles: profiles, passkeys: passkeys, to: &output)
            } else {
                let value = finder.value(of: member, in: stored)
                guard Self.write(value, of: stored, content: member.content, to: &output) else { return false }
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
            value { stored.name(at: $0, is: name) }
        }

        /// The value of `member`, its name compared as `EntityLayout` keeps it.
        mutating func value(of member: EntityLayout.Member, in stored: StoredJSONText) -> Range<Int>? {
            value { stored.name(at: $0, isKey: member.key) }
        }

        private mutating func value(_ matches: (Range<Int>) -> Bool) -> Range<Int>? {
            for offset in 0..<members.count {
                let index = (next + offset) % members.count
                if matches(members[index].name) {
                    next = index + 1
                    return members[index].value
                }
            }
            return nil
        }
    }

    /// `rendered(_:definition:)` from a stored value's bytes (`nil`: absent).
    private static func write(
        _ value: Range<Int>?, of stored: StoredJSONText, content: EntityLayout.Content, to output: inout [UInt8]
    ) -> Bool {
        switch content {
        case .object(let layout):
            return writeObject(
                value.flatMap { stored.members(ofObjectAt: $0.lowerBound) } ?? [], of: stored, layout: layout, id: nil,
                to: &output)
        case .plural(let layout):
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
        case .scalar, .service:
            if let value { output.append(contentsOf: stored.bytes[value]) } else { output.append(contentsOf: "null".utf8) }
            return true
        }
    }

    /// `rendered(_:scope:keepingID:)` from a stored object's members: every attribute of the scope, and the
    /// element's `id` in its sorted place.
    private static func writeObject(
        _ members: [StoredJSONText.Member], of stored: StoredJSONText, layout: EntityLayout, id: Int64?,
        to output: inout [UInt8]
    ) -> Bool {
        var finder = MemberFinder(members: members)
        output.append(UInt8(ascii: "{"))
        var first = true
        for (index, member) in layout.members.enumerated() {
            if let id, index == layout.idPosition {
                writeID(id, first: first, to: &output)
                first = false
            }
            writeKey(member, first: first, to: &output)
            first = false
            guard write(finder.value(of: member, in: stored), of: stored, content: member.content, to: &output)
            else { return false }
        }
        if let id, layout.idPosition == layout.members.count { writeID(id, first: first, to: &output) }
        output.append(UInt8(ascii: "}"))
        return true
    }

    /// `serviceValue` written out; dates straight into the output.
    private static func writeServiceAttribute(
        _ attribute: EntityServiceAttribute, of user: User, profiles: [LinkedIdentity], passkeys: [Passkey],
        to output: inout [UInt8]
    ) {
        guard attribute.isDate else {
            return JSONWriter.write(serviceValue(attribute, of: user, profiles: profiles, passkeys: passkeys), to: &output)
        }
        guard let date = serviceDate(attribute, of: user) else { return output.append(contentsOf: "null".utf8) }
        output.append(UInt8(ascii: "\""))
        CaptureDate.write(date, to: &output)
        output.append(UInt8(ascii: "\""))
    }

    private static func writeKey(_ member: EntityLayout.Member, first: Bool, to output: inout [UInt8]) {
        if !first { output.append(UInt8(ascii: ",")) }
        output.append(contentsOf: member.key)
    }

    /// A plural element's `"id":` and its number.
    private static func writeID(_ id: Int64, first: Bool, to output: inout [UInt8]) {
        output.append(contentsOf: first ? #""id":"#.utf8 : #","id":"#.utf8)
        JSONWriter.write(.int(id), to: &output)
    }
}
