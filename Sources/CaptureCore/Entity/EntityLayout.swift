/// The attributes of one scope of the schema in the order `JSONWriter` writes them (sorted names), with the
/// layouts of the objects and plurals inside: worked out once per schema, so that `/entity` writes a record
/// straight from the stored profile (`User.writeEntity`) without building and sorting it first.
struct EntityLayout: Sendable {
    struct Member: Sendable {
        let name: String
        /// Nil for the service's own attributes at the top (`email`, `uuid`, …).
        let definition: AttributeDefinition?
        let nested: EntityLayout?
    }

    let members: [Member]
    /// Where a plural element's `id` goes among `members` (elements carry their own id; the schema names none).
    let idPosition: Int

    init(scope: [String: AttributeDefinition], system: Set<String> = []) {
        let names = Set(scope.keys).union(system).sorted()
        members = names.map { name in
            let definition = system.contains(name) ? nil : scope[name]
            let nested = definition.flatMap { $0.type.isScalar ? nil : EntityLayout(scope: $0.attributes) }
            return Member(name: name, definition: definition, nested: nested)
        }
        idPosition = names.firstIndex { $0 > "id" } ?? names.count
    }
}
