import Foundation

/// The records of one JSON document, as Janrain's calls answer them: a top-level array of records (the `results` of
/// `entity.find`, saved alone), a saved reply holding `results` (`{"stat": "ok", "results": [...]}`), or an `entity`
/// reply's `result`. The file is mapped, not read into memory, and each record's bytes are cut out by a scan that
/// only follows strings and brackets; each is then parsed on its own with the import's limits, so a large export
/// costs one record's memory at a time, as JSON lines do.
struct JSONDocumentRecords {
    private let bytes: Data
    private var position: Int
    private var line = 1
    private var lineCountedTo = 0
    /// True when the records are the elements of an array (false: one `result` object).
    private let inArray: Bool
    private var done = false

    /// Nil when the document is not one of those shapes (then it is read as JSON lines).
    init?(url: URL) throws(ImportFileError) {
        do {
            bytes = try Data(contentsOf: url, options: .alwaysMapped)
        } catch {
            throw ImportFileError("cannot read '\(url.path)': \(error.localizedDescription)")
        }
        var index = Self.skipSpace(bytes, from: Self.afterBOM(bytes))
        guard index < bytes.count else { return nil }
        if bytes[index] == UInt8(ascii: "[") {
            position = index + 1
            inArray = true
            return
        }
        guard bytes[index] == UInt8(ascii: "{") else { return nil }
        // A reply: look for `results` (an array) or `result` (one record) among the top-level members.
        index += 1
        while true {
            index = Self.skipSpace(bytes, from: index)
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
            guard let keyEnd = Self.endOfString(bytes, from: index) else { return nil }
            let key = String(decoding: bytes[(index + 1)..<(keyEnd - 1)], as: UTF8.self)
            index = Self.skipSpace(bytes, from: keyEnd)
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
            index = Self.skipSpace(bytes, from: index + 1)
            guard index < bytes.count else { return nil }
            if key == "results", bytes[index] == UInt8(ascii: "[") {
                position = index + 1
                inArray = true
                return
            }
            if key == "result", bytes[index] == UInt8(ascii: "{") {
                position = index
                inArray = false
                return
            }
            // A record on one line is an object too: JSON lines if the first object has neither member.
            guard let valueEnd = Self.endOfValue(bytes, from: index) else { return nil }
            index = Self.skipSpace(bytes, from: valueEnd)
            guard index < bytes.count, bytes[index] == UInt8(ascii: ",") else { return nil }
            index += 1
        }
    }

    /// The next record's bytes and the line it starts on; nil after the last.
    mutating func next() throws(ImportFileError) -> (line: Int, bytes: Data)? {
        guard !done else { return nil }
        var index = Self.skipSpace(bytes, from: position)
        if inArray {
            guard index < bytes.count else { throw ImportFileError("the JSON array is not closed before the end of the file") }
            if bytes[index] == UInt8(ascii: "]") {
                done = true
                return nil
            }
        }
        guard let end = Self.endOfValue(bytes, from: index) else {
            throw ImportFileError("line \(lineOf(index)): the JSON document is cut short or broken")
        }
        let start = index
        index = Self.skipSpace(bytes, from: end)
        if inArray {
            guard index < bytes.count, bytes[index] == UInt8(ascii: ",") || bytes[index] == UInt8(ascii: "]") else {
                throw ImportFileError("line \(lineOf(index)): expected , or ] after a record of the array")
            }
            position = bytes[index] == UInt8(ascii: ",") ? index + 1 : index
        } else {
            done = true
        }
        return (lineOf(start), bytes.subdata(in: start..<end))
    }

    /// The line of byte `index` (1 first), counted forward from the last one asked (records come in order).
    private mutating func lineOf(_ index: Int) -> Int {
        let stop = min(index, bytes.count)
        if lineCountedTo < stop {
            line += bytes[lineCountedTo..<stop].reduce(0) { $0 + ($1 == 10 ? 1 : 0) }
            lineCountedTo = stop
        }
        return line
    }

    private static func afterBOM(_ bytes: Data) -> Int {
        bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF ? 3 : 0
    }

    private static func skipSpace(_ bytes: Data, from start: Int) -> Int {
        var index = start
        while index < bytes.count, [9, 10, 13, 32].contains(bytes[index]) { index += 1 }
        return index
    }

    /// The index past the string that starts (with its quote) at `start`.
    private static func endOfString(_ bytes: Data, from start: Int) -> Int? {
        var index = start + 1
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\\"): index += 2
            case UInt8(ascii: "\""): return index + 1
            default: index += 1
            }
        }
        return nil
    }

    /// The index past the value at `start`: a string, an object or array (brackets counted outside strings), or a
    /// bare word or number (up to the next delimiter). The value itself is checked later, by the parser.
    private static func endOfValue(_ bytes: Data, from start: Int) -> Int? {
        guard start < bytes.count else { return nil }
        switch bytes[start] {
        case UInt8(ascii: "\""): return endOfString(bytes, from: start)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            var index = start
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\""):
                    guard let end = endOfString(bytes, from: index) else { return nil }
                    index = end
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { return index + 1 }
                default: break
                }
                index += 1
            }
            return nil
        default:
            var index = start
            while index < bytes.count, ![9, 10, 13, 32, 44, 93, 125].contains(bytes[index]) { index += 1 }
            return index > start ? index : nil
        }
    }
}
