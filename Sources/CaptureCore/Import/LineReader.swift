import Foundation

/// A file the import cannot read, or whose header it cannot use: nothing is imported.
public struct ImportFileError: Error, CustomStringConvertible, Sendable {
    public var description: String

    public init(_ description: String) { self.description = description }
}

/// Reads a file a line at a time (LF or CRLF ends), holding one chunk and one line, never the whole file.
struct LineReader {
    enum Line {
        case text(number: Int, [UInt8])
        /// Longer than the limit; its bytes were skipped to the line's end.
        case tooLong(number: Int)
    }

    private let handle: FileHandle
    private let maxLineBytes: Int
    private var buffer: [UInt8] = []
    private var position = 0
    private var atEnd = false
    private(set) var lineNumber = 0

    static let chunkBytes = 1 << 20

    init(url: URL, maxLineBytes: Int) throws(ImportFileError) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw ImportFileError("cannot read '\(url.path)': no such file")
        }
        guard !isDirectory.boolValue else { throw ImportFileError("cannot read '\(url.path)': it is a directory") }
        do {
            handle = try FileHandle(forReadingFrom: url)
        } catch {
            throw ImportFileError("cannot read '\(url.path)': \(Self.reason(error))")
        }
        self.maxLineBytes = maxLineBytes
    }

    /// The next line without its end, or nil at the end of the file.
    mutating func next() throws(ImportFileError) -> Line? {
        var skipping = false
        while true {
            if let end = buffer[position...].firstIndex(of: 10) {
                lineNumber += 1
                defer { position = end + 1 }
                if skipping || end - position > maxLineBytes { return .tooLong(number: lineNumber) }
                return .text(number: lineNumber, Self.text(buffer[position..<end], first: lineNumber == 1))
            }
            if atEnd {
                guard skipping || position < buffer.count else { return nil }
                lineNumber += 1
                defer { position = buffer.count }
                if skipping || buffer.count - position > maxLineBytes { return .tooLong(number: lineNumber) }
                return .text(number: lineNumber, Self.text(buffer[position...], first: lineNumber == 1))
            }
            if buffer.count - position > maxLineBytes {
                // Past the limit without an end: forget what was read and skip to the end of the line.
                skipping = true
                position = buffer.count
            }
            buffer.removeSubrange(0..<position)
            position = 0
            let chunk: Data?
            do {
                chunk = try handle.read(upToCount: Self.chunkBytes)
            } catch {
                throw ImportFileError("cannot read the file: \(Self.reason(error))")
            }
            if let chunk, !chunk.isEmpty { buffer.append(contentsOf: chunk) } else { atEnd = true }
        }
    }

    /// The line's bytes without a trailing CR (nor the byte-order mark some tools put before the first line).
    private static func text(_ bytes: ArraySlice<UInt8>, first: Bool) -> [UInt8] {
        var bytes = bytes
        if bytes.last == 13 { bytes = bytes.dropLast() }
        if first && bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        return Array(bytes)
    }

    private static func reason(_ error: any Error) -> String {
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain,
            let message = strerror(Int32(underlying.code))
        {
            return String(cString: message).lowercased()
        }
        return nsError.localizedDescription
    }
}
