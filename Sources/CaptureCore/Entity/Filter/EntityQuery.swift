import CaptureJSON
import Foundation

/// One `entity.find`: which records (`filter`, nil for all), in which order, which page of them, and how long the
/// database may take. The order always ends with `id` (the record's number), so pages never overlap or skip.
public struct EntityQuery: Sendable, Equatable {
    public var filter: EntityFilter?
    /// Janrain's `sort_on`, first key first; `order` adds `id` last.
    public var sort: [EntitySort]
    public var maxResults: Int
    public var firstResult: Int
    public var timeout: Duration

    /// Janrain's `max_results` when the call leaves it out, and the most it may ask (Janrain's cap; more is refused
    /// rather than cut short, so an export loop that stops at a short page never stops early).
    public static let defaultMaxResults = 100
    public static let maxResultsLimit = 10_000
    /// Janrain's `timeout`, in seconds: 10 unless the call asks for up to 60.
    public static let defaultTimeout: Duration = .seconds(10)
    public static let maxTimeoutSeconds = 60
    /// The most `first_result` may skip (an offset reads every skipped record; exports page by `id > n`).
    public static let maxFirstResult = 1_000_000

    public init(
        filter: EntityFilter? = nil, sort: [EntitySort] = [], maxResults: Int = defaultMaxResults, firstResult: Int = 0,
        timeout: Duration = defaultTimeout
    ) {
        self.filter = filter
        self.sort = sort
        self.maxResults = maxResults
        self.firstResult = firstResult
        self.timeout = timeout
    }

    /// The sort keys storage applies: `sort`, then `id` ascending unless `sort` names it already.
    public var order: [EntitySort] {
        sort.contains { $0.field == .record(.id) } ? sort : sort + [EntitySort(field: .record(.id), descending: false)]
    }

    /// A query from Janrain's parameters as the call sent them (nil when absent): `filter` (blank is no filter),
    /// `sort_on` (a JSON list of paths, `-` first for descending), `max_results` (1–10000), `first_result` (from 0),
    /// `timeout` (seconds, 1–60). Mistakes are Janrain's 200 naming the argument (223 for an unknown attribute).
    public init(
        schema: EntitySchema, filter: String?, sortOn: String?, maxResults: String?, firstResult: String?,
        timeout: String?
    ) throws(CaptureError) {
        self.init()
        if let filter, !filter.isBlank {
            self.filter = try EntityFilter.parse(filter, schema: schema)
        }
        if let sortOn { sort = try Self.sortKeys(sortOn, schema: schema) }
        if let maxResults {
            self.maxResults = try Self.integer(maxResults, "max_results", in: 1...Self.maxResultsLimit)
        }
        if let firstResult { self.firstResult = try Self.integer(firstResult, "first_result", in: 0...Self.maxFirstResult) }
        if let timeout { self.timeout = .seconds(try Self.integer(timeout, "timeout", in: 1...Self.maxTimeoutSeconds)) }
    }

    /// What `find` and `count` throw when the database took longer than `timeout`: Janrain's 200 on `timeout`, never a
    /// 5xx (the call can be sent again with a narrower filter, fewer results or a longer timeout).
    public static func timedOut(_ timeout: Duration) -> CaptureError {
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        let shown = seconds >= 1 ? "\(Int(seconds.rounded())) seconds" : "\(Int((seconds * 1000).rounded())) ms"
        return .invalidArgument(
            "timeout",
            "the query took longer than \(shown): narrow the filter, ask for fewer max_results, or raise timeout (at most "
                + "\(maxTimeoutSeconds) seconds)")
    }

    /// Janrain's `timeout` parameter alone (for `entity.count`): the default when nil.
    public static func timeout(_ text: String?) throws(CaptureError) -> Duration {
        guard let text else { return defaultTimeout }
        return .seconds(try integer(text, "timeout", in: 1...maxTimeoutSeconds))
    }

    static func integer(_ text: String, _ argument: String, in range: ClosedRange<Int>) throws(CaptureError) -> Int {
        guard let value = Int(text.trimmingCharacters(in: .whitespaces)), range.contains(value) else {
            throw .invalidArgument(argument, "must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    /// `sort_on`: `["-lastUpdated", "id"]`.
    static func sortKeys(_ text: String, schema: EntitySchema) throws(CaptureError) -> [EntitySort] {
        let problem = "must be a JSON list of attribute names, like [\"-lastUpdated\"] (- first for descending)"
        guard let parsed = try? JSONParser.parse(text), case .array(let elements) = parsed, elements.count <= 16 else {
            throw .invalidArgument("sort_on", problem + ", with at most 16")
        }
        let resolver = FilterResolver(schema: schema)
        var keys: [EntitySort] = []
        for element in elements {
            guard case .string(var name) = element else { throw .invalidArgument("sort_on", problem) }
            let descending = name.hasPrefix("-")
            if descending { name.removeFirst() }
            let field = try resolver.field(name, at: nil, argument: "sort_on")
            guard !keys.contains(where: { $0.field == field }) else {
                throw .invalidArgument("sort_on", "names '\(name)' twice")
            }
            keys.append(EntitySort(field: field, descending: descending))
        }
        return keys
    }
}

/// One key of an order: a field, ascending (absent or null first) or descending (absent or null last).
public struct EntitySort: Sendable, Equatable {
    public var field: FilterField
    public var descending: Bool

    public init(field: FilterField, descending: Bool = false) {
        self.field = field
        self.descending = descending
    }
}
