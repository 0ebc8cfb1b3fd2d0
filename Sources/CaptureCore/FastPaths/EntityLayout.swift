import CaptureJSON

/// The attributes of one scope of the schema in the order `JSONWriter` writes them (sorted names), with the
/// layouts of the objects and plurals inside: worked out once per schema, so that `/entity` writes a record
/// straight from the stored profile (`EntityEncoder.write`) without building and sorting it first. Each member carries
/// what writing it takes and no more: its key already written as JSON, and what kind of value follows.
final class EntityLayout: Sendable {
    struct Member: Sendable {
        let name: String
        /// `"name":`, as `JSONWriter` writes the key.
        let key: [UInt8]
        let content: Content
    }

    enum Content: Sendable {
        /// The service's own attributes at the top (`email`, `uuid`, …).
        case service(EntityServiceAttribute)
        case scalar
        case object(EntityLayout)
        case plural(EntityLayout)
    }

    let members: [Member]
    /// Where a plural element's `id` goes among `members` (elements carry their own id; the schema names none).
    let idPosition: Int

    init(scope: [String: AttributeDefinition], service: Bool = false) {
        let system = service ? Set(EntityServiceAttribute.allCases.map(\.rawValue)) : []
        let names = Set(scope.keys).union(system).sorted()
        members = names.map { name in
            var key: [UInt8] = []
            JSONWriter.writeString(name, to: &key)
            key.append(UInt8(ascii: ":"))
            let content: Content
            if let attribute = EntityServiceAttribute(rawValue: name), service {
                content = .service(attribute)
            } else if let definition = scope[name] {
                switch definition.type {
                case .object: content = .object(EntityLayout(scope: definition.attributes))
                case .plural: content = .plural(EntityLayout(scope: definition.attributes))
                default: content = .scalar
                }
            } else {
                content = .scalar
            }
            return Member(name: name, key: key, content: content)
        }
        idPosition = names.firstIndex { $0 > "id" } ?? names.count
    }
}

/// What `User.entity` adds to the schema's attributes (`email` replaces the schema's own), kept by the service.
enum EntityServiceAttribute: String, CaseIterable, Sendable {
    case email, id, uuid, emailVerified, created, lastUpdated, lastLogin, profiles, passkeys

    /// Written as `CaptureDate` text (`EntityEncoder.serviceDate`).
    var isDate: Bool {
        switch self {
        case .emailVerified, .created, .lastUpdated, .lastLogin: true
        case .email, .id, .uuid, .profiles, .passkeys: false
        }
    }
}
