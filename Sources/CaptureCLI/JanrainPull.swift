import CaptureCore
import CaptureJSON
import Foundation

/// One run of `capturectl migrate janrain`: the failures of the last run first, then page after page from the kept
/// `id`, each page imported (`AdminService.importRecords`) before the place is saved.
struct JanrainPull {
    let source: JanrainSource
    let admin: AdminService
    let options: ImportOptions
    let statePath: String
    /// `--since`, as Janrain's filter takes a date.
    let since: String?
    private(set) var checkpoint: PullCheckpoint
    private(set) var summary = ImportSummary()

    init(source: JanrainSource, admin: AdminService, options: ImportOptions, statePath: String, since: String?) {
        self.source = source
        self.admin = admin
        self.options = options
        self.statePath = statePath
        self.since = since
        checkpoint = PullCheckpoint(source: source.base)
    }

    mutating func run(restart: Bool) async throws {
        checkpoint =
            try restart ? PullCheckpoint(source: source.base) : PullCheckpoint.load(path: statePath, source: source.base)
        if since != checkpoint.since {
            checkpoint.since = since
            checkpoint.sinceLastID = 0
        }
        try checkpoint.save(path: statePath)
        let progress = ProgressPrinter(label: "records")
        try await retryFailures()
        var last = since == nil ? checkpoint.lastID : checkpoint.sinceLastID
        progress.total = await source.count(after: last, since: since).map { $0 + summary.read }
        while true {
            let page = try await source.records(after: last, since: since, limit: options.batchSize)
            if page.isEmpty { break }
            var failed = Set(checkpoint.failed)
            for record in page {
                if let uuid = Self.uuid(record) { failed.remove(uuid) }
            }
            try await importPage(page, failed: &failed)
            last = max(last, page.compactMap(Self.id).max() ?? last)
            if since == nil { checkpoint.lastID = last } else { checkpoint.sinceLastID = last }
            checkpoint.failed = failed.sorted()
            try checkpoint.save(path: statePath)
            progress.update(summary.read, note: "last id \(last)")
            if page.count < options.batchSize { break }
        }
        progress.finish(summary.read, note: "last id \(last)")
    }

    /// Records that failed before, read again by uuid; one the source no longer has leaves the list.
    private mutating func retryFailures() async throws {
        guard !checkpoint.failed.isEmpty else { return }
        var failed = Set(checkpoint.failed)
        for start in stride(from: 0, to: checkpoint.failed.count, by: 50) {
            let uuids = Array(checkpoint.failed[start..<min(start + 50, checkpoint.failed.count)])
            uuids.forEach { failed.remove($0) }
            try await importPage(try await source.records(uuids: uuids), failed: &failed)
        }
        checkpoint.failed = failed.sorted()
        try checkpoint.save(path: statePath)
    }

    /// Imports one page; the uuids of its refused records go into `failed`, each reported on stderr.
    private mutating func importPage(_ page: [JSONValue], failed: inout Set<String>) async throws {
        let inputs = page.enumerated().map { index, record in
            ImportInput(line: Self.id(record).map { Int($0) } ?? index, value: .success(record))
        }
        var refusals: [ImportRefusal] = []
        try await admin.importRecords(inputs, options: options, into: &summary) { refusals.append($0) }
        for refusal in refusals {
            if let uuid = refusal.uuid { failed.insert(uuid) }
            let attribute = refusal.attribute.map { " (\($0))" } ?? ""
            let text =
                "uuid \(refusal.uuid ?? "?") (id \(refusal.line)): \(refusal.code) \(refusal.error)\(attribute): \(refusal.message)\n"
            FileHandle.standardError.write(Data(text.utf8))
        }
    }

    static func id(_ record: JSONValue) -> Int64? {
        guard case .object(let members) = record, case .int(let id)? = members["id"] else { return nil }
        return id
    }

    static func uuid(_ record: JSONValue) -> String? {
        guard case .object(let members) = record, case .string(let uuid)? = members["uuid"] else { return nil }
        return uuid.lowercased()
    }
}
