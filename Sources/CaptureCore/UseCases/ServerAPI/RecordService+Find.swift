import CaptureJSON

/// What `entity.find` answers: the page of records (each its JSON) and, when asked, how many match in all.
public struct FoundRecords: Sendable {
    public var results: [[UInt8]]
    public var totalCount: Int?
}

extension RecordService {
    /// `entity.find`: the records Janrain's `filter` matches, sorted (`sort_on`), paged (`max_results`,
    /// `first_result`), each as `attributes` picks, with `total_count` when `show_total_count` is true. The filter runs
    /// in the database within `timeout`.
    public func find(_ request: ServerRequest) async throws -> FoundRecords {
        let caller = try await authentication.caller(request, for: .readRecords)
        try Self.checkTypeName(request.parameters)
        let parameters = request.parameters
        let showsHash = Self.showsHash(caller)
        let query = try EntityQuery(
            schema: catalog.schema, filter: parameters["filter"], sortOn: parameters["sort_on"],
            maxResults: parameters["max_results"], firstResult: parameters["first_result"], timeout: parameters["timeout"])
        let selection = try AttributeSelection(parameters["attributes"])
        let results = try await records.records(query).map { stored in
            try view(of: stored, parameters: [:], selection: selection, showsHash: showsHash)
        }
        var found = FoundRecords(results: results)
        if try Self.flag(parameters["show_total_count"], "show_total_count") {
            found.totalCount = try await self.users.count(query.filter, timeout: query.timeout)
        }
        return found
    }

    /// `entity.count`: how many records `filter` matches (all without one).
    public func count(_ request: ServerRequest) async throws -> Int {
        _ = try await authentication.caller(request, for: .readRecords)
        try Self.checkTypeName(request.parameters)
        let filter = try request.parameters["filter"].flatMap { text in
            text.isBlank ? nil : try EntityFilter.parse(text, schema: catalog.schema)
        }
        return try await users.count(filter, timeout: try EntityQuery.timeout(request.parameters["timeout"]))
    }

    /// A Janrain boolean parameter: `true`/`false` (absent is false).
    static func flag(_ text: String?, _ name: String) throws -> Bool {
        switch text?.lowercased() {
        case nil, "false"?, "0"?: return false
        case "true"?, "1"?: return true
        default: throw CaptureError.invalidArgument(name, "must be true or false")
        }
    }
}
