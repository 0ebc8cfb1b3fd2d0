import CaptureJSON

/// A user's schema attributes (email included) while they are read or changed: Janrain's `entity.update`
/// (merge), `entity.replace` and `entity.delete`, at the whole record or at a path, every value checked
/// against the schema. Plural elements get ids from the record's own counter, so an id is never reused.
public struct EntityDocument: Sendable, Equatable {
    public let schema: EntitySchema
    public var values: [String: JSONValue]
    public var lastElementID: Int64
    /// A user writing through an access token cannot touch `readOnly` attributes; operators and imports can.
    public var asUser: Bool

    /// A record holds at most this much JSON: updates can append plural elements, and storage must stay bounded.
    public static let maxEncodedBytes = 65_536

    public init(schema: EntitySchema, values: [String: JSONValue], lastElementID: Int64, asUser: Bool) {
        self.schema = schema
        self.values = values
        self.lastElementID = lastElementID
        self.asUser = asUser
    }

    enum Target {
        case record
        case attribute(AttributeDefinition)
        /// One element of this plural.
        case element(AttributeDefinition)
    }

    // MARK: reading

    /// The value at `path` (the whole record at the root); nil when the attribute is empty.
    public func value(at path: EntityPath) throws(CaptureError) -> JSONValue? {
        do {
            _ = try schema.definition(at: path)
        } catch {
            throw .schemaViolation(error)
        }
        var current: JSONValue? = .object(values)
        for step in path.steps {
            current = current?.objectMembers?[step.name]
            if let id = step.element {
                guard let found = current?.arrayElements?.first(where: { $0.elementID == id }) else {
                    throw .recordNotFound("plural element \(step.name)#\(id)")
                }
                current = found
            }
        }
        return current == .null ? nil : current
    }

    // MARK: writing

    /// `entity.update`: the given attributes change, others stay; plural elements without an id are appended,
    /// those with one replace that element.
    public mutating func update(at path: EntityPath, with value: JSONValue) throws(CaptureError) {
        let before = self
        try write(at: path) { current, target, walked in
            try before.written(value, over: current, target, at: walked, replacing: false)
        }
    }

    /// `entity.replace`: what is at `path` becomes `value`; attributes it leaves out are cleared.
    public mutating func replace(at path: EntityPath, with value: JSONValue) throws(CaptureError) {
        let before = self
        try write(at: path) { current, target, walked in
            try before.written(value, over: current, target, at: walked, replacing: true)
        }
    }

    /// `entity.delete` of an attribute or a plural element (the record itself is not deleted this way).
    public mutating func delete(at path: EntityPath) throws(CaptureError) {
        guard !path.isRoot else {
            throw .invalidArgument("attribute_name", "name the attribute or plural element to delete")
        }
        let asUser = asUser
        try write(at: path) { _, target, walked in
            if case .attribute(let definition) = target, asUser && definition.readOnly {
                throw SchemaViolation(.constraint, walked.description, "\(walked) is read-only")
            }
            return nil
        }
    }

    private mutating func write(
        at path: EntityPath,
        _ change: (JSONValue?, Target, EntityPath) throws -> JSONValue?
    ) throws(CaptureError) {
        do {
            let root = try modified(
                .object(values), target: .record, steps: path.steps[...], walked: EntityPath(steps: []), change)
            values = root?.objectMembers ?? [:]
            try checkComplete()
        } catch {
            throw CaptureError(error)
        }
    }

    /// Walks down `steps` from `current` and applies `change` at the end; returns the new value here.
    private func modified(
        _ current: JSONValue?, target: Target, steps: ArraySlice<EntityPath.Step>, walked: EntityPath,
        _ change: (JSONValue?, Target, EntityPath) throws -> JSONValue?
    ) throws -> JSONValue? {
        guard let step = steps.first else { return try change(current, target, walked) }
        let here = walked.appending(step.name, element: step.element)
        let scope: [String: AttributeDefinition]
        switch target {
        case .record: scope = schema.attributes
        case .attribute(let definition) where definition.type == .object: scope = definition.attributes
        case .element(let definition): scope = definition.attributes
        case .attribute(let definition) where definition.type == .plural:
            throw SchemaViolation(.unknownAttribute, here.description, "name one element of \(walked), like \(walked)#3")
        case .attribute: throw SchemaViolation(.unknownAttribute, here.description, "\(walked) holds no attributes")
        }
        guard let definition = scope[step.name] else {
            if case .record = target, EntitySchema.systemAttributes.contains(step.name) {
                throw SchemaViolation(.constraint, here.description, "\(step.name) is kept by the service")
            }
            throw SchemaViolation(.unknownAttribute, here.description, "'\(here)' is not an attribute of the user record")
        }
        var object = current?.objectMembers ?? [:]
        if let id = step.element {
            guard definition.type == .plural else {
                throw SchemaViolation(.unknownAttribute, here.description, "\(step.name) is not a plural")
            }
            var elements = object[step.name]?.arrayElements ?? []
            guard let index = elements.firstIndex(where: { $0.elementID == id }) else {
                throw CaptureError.recordNotFound("plural element \(step.name)#\(id)")
            }
            if let element = try modified(
                elements[index], target: .element(definition), steps: steps.dropFirst(), walked: here, change)
            {
                elements[index] = element
            } else {
                elements.remove(at: index)
            }
            object[step.name] = elements.isEmpty ? nil : .array(elements)
        } else {
            object[step.name] = try modified(
                object[step.name], target: .attribute(definition), steps: steps.dropFirst(), walked: here, change)
        }
        if case .record = target { return .object(object) }
        return object.isEmpty ? nil : .object(object)
    }

    /// `value` written over `current` at a target; nil clears it.
    private func written(
        _ value: JSONValue, over current: JSONValue?, _ target: Target, at path: EntityPath, replacing: Bool
    ) throws -> JSONValue? {
        switch target {
        case .record:
            guard case .object(let given) = value else {
                throw SchemaViolation(.invalidJSONType, "", "the record must be a JSON object")
            }
            return .object(
                try writtenObject(
                    given, over: current?.objectMembers ?? [:], scope: schema.attributes, at: path, replacing: replacing))
        case .attribute(let definition):
            if asUser && definition.readOnly {
                throw SchemaViolation(.constraint, path.description, "\(path) is read-only")
            }
            if value == .null { return nil }
            switch definition.type {
            case .object:
                guard case .object(let given) = value else { throw definition.typeError(path.description, "an object") }
                let object = try writtenObject(
                    given, over: current?.objectMembers ?? [:], scope: definition.attributes, at: path, replacing: replacing)
                return object.isEmpty ? nil : .object(object)
            case .plural:
                guard case .array(let given) = value else { throw definition.typeError(path.description, "a list of objects") }
                let elements = try writtenPlural(
                    given, over: current?.arrayElements ?? [], definition, at: path, replacing: replacing)
                return elements.isEmpty ? nil : .array(elements)
            default:
                return try definition.checkedScalar(value, at: path.description)
            }
        case .element(let definition):
            guard case .object(var given) = value, let id = current?.elementID else {
                throw definition.typeError(path.description, "an object")
            }
            given["id"] = nil
            var object = current?.objectMembers ?? [:]
            object["id"] = nil
            object = try writtenObject(given, over: object, scope: definition.attributes, at: path, replacing: replacing)
            object["id"] = .int(id)
            return .object(object)
        }
    }

    private func writtenObject(
        _ given: [String: JSONValue], over current: [String: JSONValue], scope: [String: AttributeDefinition],
        at path: EntityPath, replacing: Bool
    ) throws -> [String: JSONValue] {
        var result = replacing ? [:] : current
        for (key, value) in given.sorted(by: { $0.key < $1.key }) {
            let here = path.appending(key)
            guard let definition = scope[key] else {
                if path.isRoot && EntitySchema.systemAttributes.contains(key) {
                    throw SchemaViolation(.constraint, here.description, "\(key) is kept by the service")
                }
                throw SchemaViolation(.unknownAttribute, here.description, "'\(here)' is not an attribute of the user record")
            }
            result[key] = try written(value, over: current[key], .attribute(definition), at: here, replacing: replacing)
        }
        return result
    }

    private func writtenPlural(
        _ given: [JSONValue], over current: [JSONValue], _ definition: AttributeDefinition, at path: EntityPath,
        replacing: Bool
    ) throws -> [JSONValue] {
        var result = replacing ? [] : current
        var counter = lastElementID
        for element in given {
            guard case .object(var members) = element else {
                throw definition.typeError(path.description, "a list of objects")
            }
            let id = members.removeValue(forKey: "id")
            var object = try writtenObject(members, over: [:], scope: definition.attributes, at: path, replacing: true)
            if let id, id != .null {
                guard case .int(let number) = id, current.contains(where: { $0.elementID == number }) else {
                    throw CaptureError.recordNotFound("plural element \(path)#\(id.compactText)")
                }
                object["id"] = .int(number)
                if let index = result.firstIndex(where: { $0.elementID == number }) {
                    result[index] = .object(object)
                } else {
                    result.append(.object(object))
                }
            } else {
                counter += 1
                object["id"] = .int(counter)
                result.append(.object(object))
            }
        }
        // New elements are numbered past the record's counter; `checkComplete` then moves the counter past them.
        return result
    }

    // MARK: the whole record

    /// Required attributes present, the size bounded, and the element counter past every id in the record.
    private mutating func checkComplete() throws {
        func walk(_ object: [String: JSONValue], _ scope: [String: AttributeDefinition], _ path: EntityPath) throws {
            for definition in scope.values.sorted(by: { $0.name < $1.name }) {
                let here = path.appending(definition.name)
                guard let value = object[definition.name], value != .null else {
                    if definition.required {
                        throw SchemaViolation(.required, here.description, "\(here) is required")
                    }
                    continue
                }
                switch definition.type {
                case .object: try walk(value.objectMembers ?? [:], definition.attributes, here)
                case .plural:
                    for element in value.arrayElements ?? [] {
                        let id = element.elementID ?? 0
                        lastElementID = max(lastElementID, id)
                        try walk(
                            element.objectMembers ?? [:], definition.attributes, path.appending(definition.name, element: id))
                    }
                default: break
                }
            }
        }
        try walk(values, schema.attributes, EntityPath(steps: []))
        if JSONValue.object(values).encodedBytes().count > Self.maxEncodedBytes {
            throw SchemaViolation(.constraint, "", "the record would be larger than \(Self.maxEncodedBytes) bytes")
        }
    }

    /// Text of each unique attribute that has a value, by dot path (case-insensitive for text).
    public var uniqueValues: [String: String] {
        var found: [String: String] = [:]
        for path in schema.uniquePaths {
            guard let value = try? self.value(at: path), let text = Self.uniqueText(of: value) else { continue }
            found[path.description] = text
        }
        return found
    }

    /// The text a unique attribute's index holds for `value`: text lower-cased, numbers and booleans as JSON writes
    /// them; nil for anything else.
    public static func uniqueText(of value: JSONValue) -> String? {
        switch value {
        case .string(let text): text.lowercased()
        case .int, .double, .bool: value.compactText
        default: nil
        }
    }
}

extension JSONValue {
    var objectMembers: [String: JSONValue]? {
        if case .object(let members) = self { return members }
        return nil
    }

    var arrayElements: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// The `id` of a plural element.
    var elementID: Int64? {
        if case .int(let id) = objectMembers?["id"] { return id }
        return nil
    }

    /// The value as compact JSON text (numbers and booleans as written).
    var compactText: String { String(decoding: encodedBytes(), as: UTF8.self) }
}
