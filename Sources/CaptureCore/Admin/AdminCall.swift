import CaptureJSON

/// One admin operation's input as the admin API carries it: path references by name, query parameters (reads) and
/// a JSON body's members (changes). Both ends read and write it: the routes decode it from a request, the remote
/// console encodes it into one.
public struct AdminCall: Sendable, Equatable {
    public var references: [String: String]
    public var query: [String: String]
    public var body: [String: JSONValue]

    public init(references: [String: String] = [:], query: [String: String] = [:], body: [String: JSONValue] = [:]) {
        self.references = references
        self.query = query
        self.body = body
    }

    /// A path reference (a token, user or client), always present in a routed call.
    public func reference(_ name: String) throws -> String {
        guard let value = references[name], !value.isEmpty else { throw CaptureError.missingArgument(name) }
        return value
    }

    /// `limit` and `offset`, checked.
    public func page() throws -> Page { try Page(limit: query["limit"], offset: query["offset"]) }

    /// A JSON member that must be a string when present.
    public func string(_ name: String) throws -> String? {
        switch body[name] {
        case nil, .null: return nil
        case .string(let value): return value
        default: throw CaptureError.invalidArgument(name, "must be a string")
        }
    }

    public func strings(_ name: String) throws -> [String]? {
        switch body[name] {
        case nil, .null: return nil
        case .array(let values):
            return try values.map {
                guard case .string(let value) = $0 else {
                    throw CaptureError.invalidArgument(name, "must be an array of strings")
                }
                return value
            }
        default: throw CaptureError.invalidArgument(name, "must be an array of strings")
        }
    }

    public func bool(_ name: String) throws -> Bool? {
        switch body[name] {
        case nil, .null: return nil
        case .bool(let value): return value
        default: throw CaptureError.invalidArgument(name, "must be true or false")
        }
    }

    /// A page's parameters as a query carries them.
    static func query(_ values: [String: String?], page: Page?) -> [String: String] {
        var query = values.compactMapValues { $0 }
        if let page {
            query["limit"] = String(page.limit)
            query["offset"] = String(page.offset)
        }
        return query
    }
}
