import CaptureJSON
import Foundation

/// How the admin views (`TokenView`, `UserView`, …) become the admin API's JSON and back: dates as ISO-8601 UTC to
/// the second, every optional member written (null when absent) unless a view says otherwise, and the bytes written by
/// `JSONWriter` (sorted keys), so the server, `capturectl --json` and `RemoteAdminConsole` agree to the byte.
public enum AdminViews {
    /// Encodes a view; dates as `AdminDocuments.iso`.
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(AdminDocuments.iso(date))
        }
        return encoder
    }

    /// Decodes a view from an admin API reply; dates are ISO-8601.
    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = try? Date.ISO8601FormatStyle().parse(text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "'\(text)' is not an ISO-8601 date")
            }
            return date
        }
        return decoder
    }

    /// A view as the JSON document the admin API sends (written by `JSONWriter`, keys sorted).
    public static func document(_ view: some Encodable) throws -> JSONValue {
        try JSONParser.parse(try encoder().encode(view), limits: .ownOutput)
    }

    public static func decode<View: Decodable>(_ type: View.Type, from bytes: some Collection<UInt8>) throws -> View {
        try decoder().decode(type, from: Data(bytes))
    }
}

/// One page of a list: its items, and the offset of the next page when there may be one.
public struct AdminList<Item: Codable & Sendable & Equatable>: Codable, Sendable, Equatable {
    public var items: [Item]
    public var nextOffset: Int?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case items
        case nextOffset = "next_offset"
    }

    public init(items: [Item], nextOffset: Int?) {
        self.items = items
        self.nextOffset = nextOffset
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(items, forKey: .items)
        try container.encode(nextOffset, forKey: .nextOffset)
    }
}
