import CaptureJSON
import Foundation

/// The records of an export file, one at a time, each with the line it starts on: JSON lines, one JSON document
/// (an array of records, or a saved `entity.find` / `entity` reply: `JSONDocumentRecords`), or CSV. A record that cannot even be
/// read (broken JSON, a CSV row of the wrong width, a line over the size limit) comes as its refusal; a file that
/// cannot be read, or a CSV header that names no attributes of the schema, stops the import before it starts.
struct ImportSource {
    struct Record {
        var line: Int
        var value: Result<JSONValue, CaptureError>
    }

    /// One record is far below this (a stored record is at most `EntityDocument.maxEncodedBytes`); exports with
    /// empty attributes written out as nulls still fit.
    static let maxLineBytes = 1 << 20
    static let limits = JSONParser.Limits(
        maxInputBytes: maxLineBytes, maxDepth: 32, maxValues: 100_000, maxStringBytes: 65_536, maxNumberBytes: 64)

    private var lines: LineReader
    private let csv: CSVColumns?
    private var document: JSONDocumentRecords?

    init(url: URL, options: ImportOptions, schema: EntitySchema) throws(ImportFileError) {
        lines = try LineReader(url: url, maxLineBytes: Self.maxLineBytes)
        guard options.format == .csv else {
            csv = nil
            document = try JSONDocumentRecords(url: url)
            return
        }
        guard let header = try lines.next() else { throw ImportFileError("the CSV file is empty: it needs a header row") }
        guard case .text(_, let bytes) = header, let text = String(bytes: bytes, encoding: .utf8),
            case .success(let names) = CSVColumns.fields(of: text)
        else { throw ImportFileError("line 1: the CSV header is not a row of attribute names") }
        csv = try CSVColumns(header: names, schema: schema, ignoreUnknown: options.ignoreUnknown)
    }

    /// The next record, or nil at the end of the file; blank lines are skipped.
    mutating func next() throws(ImportFileError) -> Record? {
        if document != nil {
            guard let record = try document?.next() else { return nil }
            guard record.bytes.count <= Self.maxLineBytes else {
                return Record(
                    line: record.line,
                    value: .failure(.invalidArgument("record", "the record is longer than \(Self.maxLineBytes) bytes")))
            }
            return Record(line: record.line, value: Self.json(Array(record.bytes)))
        }
        while let line = try lines.next() {
            switch line {
            case .tooLong(let number):
                return Record(
                    line: number,
                    value: .failure(.invalidArgument("record", "line \(number) is longer than \(Self.maxLineBytes) bytes")))
            case .text(let number, let bytes):
                if bytes.allSatisfy({ $0 == 32 || $0 == 9 }) { continue }
                guard let csv else { return Record(line: number, value: Self.json(bytes)) }
                return Record(line: number, value: try csvRecord(bytes, csv: csv))
            }
        }
        return nil
    }

    private static func json(_ bytes: [UInt8]) -> Result<JSONValue, CaptureError> {
        do {
            return .success(try JSONParser.parse(bytes, limits: limits))
        } catch {
            return .failure(.invalidArgument("record", "not valid JSON: \(error.message)"))
        }
    }

    /// A row, joined with the lines that follow while a quoted cell is open (a cell may hold line breaks).
    private mutating func csvRecord(_ first: [UInt8], csv: CSVColumns) throws(ImportFileError) -> Result<JSONValue, CaptureError>
    {
        var bytes = first
        while CSVColumns.isOpen(bytes) {
            guard bytes.count <= Self.maxLineBytes else {
                return .failure(.invalidArgument("record", "the row is longer than \(Self.maxLineBytes) bytes"))
            }
            switch try lines.next() {
            case .text(_, let more)?:
                bytes.append(10)
                bytes.append(contentsOf: more)
            case .tooLong?: return .failure(.invalidArgument("record", "the row is longer than \(Self.maxLineBytes) bytes"))
            case nil: return .failure(.invalidArgument("record", "a quoted cell is not closed before the end of the file"))
            }
        }
        guard let text = String(bytes: bytes, encoding: .utf8) else {
            return .failure(.invalidArgument("record", "the row is not valid UTF-8"))
        }
        return CSVColumns.fields(of: text).flatMap { csv.record($0) }
    }
}
