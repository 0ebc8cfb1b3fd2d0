/// How `capturectl user import` reads a file of exported records.
public enum ImportFormat: String, Sendable, CaseIterable {
    /// One JSON object per line, as Janrain's bulk export writes records.
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

    public init(line: Int, code: Int, error: String, attribute: String?, message: String) {
        self.line = line
        self.code = code
        self.error = error
        self.attribute = attribute
        self.message = message
    }

    init(line: Int, _ violation: SchemaViolation) {
        self.init(
            line: line, code: violation.code, error: violation.error,
            attribute: violation.path.isEmpty ? nil : violation.path, message: violation.message)
    }

    init(line: Int, _ error: CaptureError) {
        if case .schemaViolation(let violation) = error {
            self.init(line: line, violation)
        } else {
            self.init(line: line, code: error.code, error: error.error, attribute: nil, message: error.errorDescription)
        }
    }
}

/// The outcome of a whole import: every record read was either imported or refused.
public struct ImportSummary: Sendable, Equatable {
    public var read = 0
    public var imported = 0
    public var refused = 0
    /// Imported records whose Janrain numeric `id` was taken here, so they got a new one.
    public var renumbered = 0

    public init() {}
}
