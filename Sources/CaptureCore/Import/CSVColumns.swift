import CaptureJSON

/// The columns of a CSV export (RFC 4180: commas, cells quoted with `"` when they hold commas, quotes or line
/// breaks). The header names attributes: a service attribute (`uuid`, `id`, `password`, `created`, …), a schema
/// attribute, or an object member by dot path (`primaryAddress.city`). An object may also be one cell of JSON
/// (`primaryAddress`), and a plural always is: `photos` holds `[{"type": "…", "value": "…"}]`. An empty cell is
/// an attribute without a value; other cells are read as the schema types them (`true`, `42`, `2024-05-01`).
struct CSVColumns {
    enum Column {
        case service(String)
        case scalar([String], AttributeDefinition)
        case json([String], AttributeDefinition)
        case ignored
    }

    let columns: [Column]
    let names: [String]

    init(header: [String], schema: EntitySchema, ignoreUnknown: Bool) throws(ImportFileError) {
        var columns: [Column] = []
        for (index, name) in header.enumerated() {
            func fail(_ problem: String) -> ImportFileError {
                ImportFileError("line 1, column \(index + 1) ('\(name)'): \(problem)")
            }
            guard header.firstIndex(of: name) == index else { throw fail("the column appears twice") }
            if EntitySchema.systemAttributes.contains(name) {
                columns.append(.service(name))
                continue
            }
            let names = name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            var scope = schema.attributes
            var found: AttributeDefinition?
            for (depth, step) in names.enumerated() {
                guard let definition = scope[step] else { break }
                if definition.type == .plural && depth < names.count - 1 {
                    throw fail("\(step) is a plural: give it as one cell holding a JSON array")
                }
                found = depth == names.count - 1 ? definition : nil
                scope = definition.attributes
            }
            guard let definition = found else {
                if ignoreUnknown {
                    columns.append(.ignored)
                    continue
                }
                throw fail("not an attribute of the user record (--ignore-unknown skips such columns)")
            }
            columns.append(definition.type.isScalar ? .scalar(names, definition) : .json(names, definition))
        }
        self.columns = columns
        self.names = header
    }

    /// The record a row describes, as a JSON object for `ImportRecord`.
    func record(_ cells: [String]) -> Result<JSONValue, CaptureError> {
        guard cells.count == columns.count else {
            return .failure(.invalidArgument("record", "the row has \(cells.count) cells; the header names \(columns.count)"))
        }
        var record: [String: JSONValue] = [:]
        for (column, cell) in zip(columns, cells) where !cell.isEmpty {
            switch column {
            case .ignored: continue
            case .service(let name):
                record[name] = name == "id" ? (Int64(cell).map(JSONValue.int) ?? .string(cell)) : .string(cell)
            case .scalar(let path, let definition):
                record = Self.setting(definition.value(fromForm: cell), at: path[...], in: record)
            case .json(let path, _):
                guard let value = try? JSONParser.parse(cell, limits: ImportSource.limits) else {
                    let name = path.joined(separator: ".")
                    return .failure(.schemaViolation(SchemaViolation(.invalidJSONType, name, "\(name) must be a cell of JSON")))
                }
                record = Self.setting(value, at: path[...], in: record)
            }
        }
        return .success(.object(record))
    }

    private static func setting(
        _ value: JSONValue, at names: ArraySlice<String>, in object: [String: JSONValue]
    )
        -> [String: JSONValue]
    {
        guard let name = names.first else { return object }
        var object = object
        if names.count == 1 {
            if case .object(let given) = value, case .object(let members)? = object[name] {
                object[name] = .object(members.merging(given) { _, new in new })
            } else {
                object[name] = value
            }
        } else {
            var inner: [String: JSONValue] = [:]
            if case .object(let members)? = object[name] { inner = members }
            object[name] = .object(setting(value, at: names.dropFirst(), in: inner))
        }
        return object
    }

    /// True while a quoted cell is open at the end of `bytes` (an odd number of quotes: `""` inside a cell is two).
    static func isOpen(_ bytes: [UInt8]) -> Bool {
        bytes.reduce(false) { open, byte in byte == 34 ? !open : open }
    }

    /// The cells of one row.
    static func fields(of text: String) -> Result<[String], CaptureError> {
        var cells: [String] = []
        var cell: [UInt8] = []
        var bytes = Array(text.utf8)[...]
        while true {
            cell.removeAll(keepingCapacity: true)
            if bytes.first == 34 {
                bytes = bytes.dropFirst()
                while true {
                    guard let byte = bytes.popFirst() else {
                        return .failure(.invalidArgument("record", "a quoted cell is not closed"))
                    }
                    if byte != 34 {
                        cell.append(byte)
                    } else if bytes.first == 34 {
                        cell.append(34)
                        bytes = bytes.dropFirst()
                    } else {
                        break
                    }
                }
                guard bytes.isEmpty || bytes.first == 44 else {
                    return .failure(.invalidArgument("record", "a quoted cell is followed by more than a comma"))
                }
            } else {
                while let byte = bytes.first, byte != 44 {
                    if byte == 34 { return .failure(.invalidArgument("record", "a quote inside an unquoted cell")) }
                    cell.append(byte)
                    bytes = bytes.dropFirst()
                }
            }
            cells.append(String(decoding: cell, as: UTF8.self))
            guard bytes.first == 44 else { return .success(cells) }
            bytes = bytes.dropFirst()
        }
    }
}
