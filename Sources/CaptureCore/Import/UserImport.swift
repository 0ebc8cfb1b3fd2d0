/// How `capturectl user import` reads a file of exported records.
public enum ImportFormat: String, Sendable, CaseIterable {
    /// One JSON object per line, as Janrain's bulk export writes records; or one JSON document: an array of records,
    /// or a saved `entity.find` reply (`results`) or `entity` reply (`result`).
    case jsonl
    /// A header row of attribute paths (`primaryAddress.city`), then one record per row.
    case csv

    /// The format a file name implies (`.jsonl`, `.ndjson`, `.json`, `.csv`), if any.
    public init?(fileName: String) {
        let lower = fileName.lowercased()
        if lower.hasSuffix(".jsonl") || lower.hasSuffix(".ndjson") || lower.hasSuffix(".json") {
            self = .jsonl
        } else if lower.hasSuffix(".csv") {
            self = .csv
        } else {
            return nil
        }
    }
}

/// What an import is asked to do.
public struct ImportOptions: Sendable {
    public var format: ImportFormat
    /// Drop attributes the schema does not define instead of refusing the record.
    public var ignoreUnknown: Bool
    /// Records per write transaction.
    public var batchSize: Int

    public init(format: ImportFormat, ignoreUnknown: Bool = false, batchSize: Int = 1000) {
        self.format = format
        self.ignoreUnknown = ignoreUnknown
        self.batchSize = max(1, batchSize)
    }
}

/// One record the import did not store, and why (Janrain's code and error, the attribute when there is one).
public struct ImportRefusal: Sendable, Equatable {
    /// The line the record starts on (1 is the first line of the file; a CSV header is line 1).
    public var line: Int
    public var code: Int
    public var error: String
    /// Dot path of the attribute at fault, when one is.
    public var attribute: String?
    public var message: String
    /// The record's `uuid`, when it has one (a pull names failures by it).
    public var uuid: String?

    public init(line: Int, code: Int, error: String, attribute: String?, message: String, uuid: String? = nil) {
        self.line = line
        self.code = code
        self.error = error
        self.attribute = attribute
        self.message = message
        self.uuid = uuid
    }

    init(line: Int, _ violation: SchemaViolation, uuid: String? = nil) {
        self.init(
            line: line, code: violation.code, error: violation.error,
            attribute: violation.path.isEmpty ? nil : violation.path, message: violation.message, uuid: uuid)
    }

    init(line: Int, _ error: CaptureError, uuid: String? = nil) {
        if case .schemaViolation(let violation) = error {
            self.init(line: line, violation, uuid: uuid)
        } else {
            self.init(
                line: line, code: error.code, error: error.error, attribute: nil, message: error.errorDescription,
                uuid: uuid)
        }
    }
}

/// The outcome of a whole import: every record read was created, updated, left unchanged or refused.
public struct ImportSummary: Sendable, Equatable {
    public var read = 0
    /// Records whose `uuid` was new here.
    public var created = 0
    /// Stored records the source's newer copy (a later `lastUpdated`) replaced.
    public var updated = 0
    /// Stored records the source holds no newer copy of.
    public var unchanged = 0
    public var refused = 0
    /// Created records whose Janrain numeric `id` was taken here, so they got a new one.
    public var renumbered = 0
    /// Social `profiles` linked as provider accounts of a provider configured here.
    public var profilesLinked = 0
    /// Social `profiles` of providers not configured here, kept as links that work once one of that name is.
    public var profilesKept = 0
    /// Social `profiles` that name no provider account, or one linked to someone else here: not kept.
    public var profilesNotLinked = 0

    /// Records stored by this import (created or updated).
    public var imported: Int { created + updated }

    public init() {}

    /// Adds another run's counts (a pull's batches).
    public mutating func add(_ other: ImportSummary) {
        read += other.read
        created += other.created
        updated += other.updated
        unchanged += other.unchanged
        refused += other.refused
        renumbered += other.renumbered
        profilesLinked += other.profilesLinked
        profilesNotLinked += other.profilesNotLinked
        profilesKept += other.profilesKept
    }
}
