import CaptureCore
import CaptureJSON
import Foundation
import Logging

/// swift-log handler writing one JSON object per line: `time` (ISO 8601, UTC, milliseconds), `level`, `label`,
/// `message` and `metadata` (the logger's, its provider's and the call's, later ones winning), through the
/// service's own `JSONWriter`, so a message or a value can never break its line.
public struct JSONLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    public var logLevel: Logger.Level
    let label: String
    let write: @Sendable ([UInt8]) -> Void

    /// `write` receives each line, newline included; by default it goes to standard error, as swift-log's text does.
    public init(
        label: String, level: Logger.Level = .info, metadataProvider: Logger.MetadataProvider? = nil,
        write: @escaping @Sendable ([UInt8]) -> Void = JSONLogHandler.standardError
    ) {
        self.label = label
        self.logLevel = level
        self.metadataProvider = metadataProvider
        self.write = write
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { _, new in new } }
        if let call = event.metadata { merged.merge(call) { _, new in new } }
        let line: JSONValue = .object([
            "time": .string(Date().formatted(Self.timeFormat)),
            "level": .string(event.level.rawValue),
            "label": .string(label),
            "message": .string(event.message.description),
            "metadata": .object(merged.mapValues(Self.json)),
        ])
        write(line.encodedBytes() + [UInt8(ascii: "\n")])
    }

    static let timeFormat = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt)

    static func json(_ value: Logger.Metadata.Value) -> JSONValue {
        switch value {
        case .string(let text): .string(text)
        case .stringConvertible(let value): .string(value.description)
        case .array(let values): .array(values.map(json))
        case .dictionary(let members): .object(members.mapValues(json))
        }
    }

    /// One `write(2)` per line, so lines from concurrent requests do not interleave.
    public static let standardError: @Sendable ([UInt8]) -> Void = { bytes in
        FileHandle.standardError.write(Data(bytes))
    }
}
