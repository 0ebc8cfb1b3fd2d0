import CaptureJSON
import Foundation

/// Where a pull stands, kept in a small JSON file beside the operator's other files (`--state`): the source, the
/// last `id` imported by the full pull and by the `--since` pull (each resumes after it), and the uuids of records
/// that failed, which the next run reads again before going on. Written after every batch (to a temporary file,
/// then renamed), so an interrupted pull loses at most the batch it was importing — and importing it again
/// duplicates nothing.
struct PullCheckpoint: Equatable {
    var source: String
    var lastID: Int64 = 0
    var since: String?
    var sinceLastID: Int64 = 0
    var failed: [String] = []

    static func load(path: String, source: String) throws -> PullCheckpoint {
        guard let data = FileManager.default.contents(atPath: path) else { return PullCheckpoint(source: source) }
        guard
            case .object(let members)? = try? JSONParser.parse(
                Array(data),
                limits: .init(
                    maxInputBytes: 64 << 20, maxDepth: 8, maxValues: 10_000_000, maxStringBytes: 4096, maxNumberBytes: 64))
        else {
            throw ImportStateError("the pull's state file '\(path)' is not JSON: give --restart to start over")
        }
        let stored = members["source"]?.stringValue ?? ""
        guard stored == source else {
            throw ImportStateError(
                "the pull's state file '\(path)' belongs to a pull from \(stored): give another --state, or --restart")
        }
        var checkpoint = PullCheckpoint(source: source)
        if case .int(let id)? = members["last_id"] { checkpoint.lastID = id }
        checkpoint.since = members["since"]?.stringValue
        if case .int(let id)? = members["since_last_id"] { checkpoint.sinceLastID = id }
        if case .array(let failed)? = members["failed"] { checkpoint.failed = failed.compactMap(\.stringValue) }
        return checkpoint
    }

    func save(path: String) throws {
        let object: JSONValue = [
            "source": .string(source), "last_id": .int(lastID), "since": .optional(since),
            "since_last_id": .int(sinceLastID), "failed": .array(failed.map(JSONValue.string)),
        ]
        let temporary = path + ".tmp"
        try object.encoded().write(to: URL(fileURLWithPath: temporary))
        guard rename(temporary, path) == 0 else {
            throw ImportStateError("cannot write the pull's state file '\(path)' (errno \(errno))")
        }
    }
}

struct ImportStateError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
