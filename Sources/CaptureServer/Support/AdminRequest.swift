import CaptureCore
import CaptureJSON
import Foundation
import Hummingbird
import NIOCore

/// Reads admin API requests: JSON bodies, query filters and path references.
enum AdminRequest {
    /// The JSON object of the body (`application/json`), size-limited.
    static func body(_ request: Request, limit: Int) async throws -> [String: JSONValue] {
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: limit)
        } catch is NIOTooManyBytesError {
            throw CaptureError.requestTooLarge(limit: limit)
        }
        let mediaType = request.headers.value(.contentType)?.split(separator: ";").first.map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        }
        guard mediaType == "application/json" else {
            throw CaptureError.unsupportedContentType(request.headers.value(.contentType) ?? "(none)")
        }
        let value: JSONValue
        do {
            value = try JSONParser.parse(buffer.readableBytesView)
        } catch {
            throw CaptureError.malformedRequest("body", "is not valid JSON (\(error))")
        }
        guard case .object(let fields) = value else { throw CaptureError.malformedRequest("body", "must be a JSON object") }
        return fields
    }

    /// A query parameter; the query may hold only `allowed` names (secrets never travel in a URL).
    static func query(_ request: Request, allowed: Set<String>) throws -> [String: String] {
        let values = try QueryFields.read(request)
        if let name = values.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw CaptureError.invalidArgument(name, "is not a parameter of this endpoint")
        }
        return values
    }

    /// A path parameter, percent-decoded (user references may be addresses).
    static func reference(_ context: CaptureRequestContext, _ name: String) throws -> String {
        guard let raw = context.parameters.get(name), let value = raw.removingPercentEncoding, !value.isEmpty else {
            throw CaptureError.missingArgument(name)
        }
        try QueryFields.refuseNUL(value, naming: name)
        return value
    }

    /// Refuses members the endpoint does not know, so a typo is not silently ignored.
    static func refuseUnknown(_ fields: [String: JSONValue], allowed: Set<String>) throws {
        if let unknown = fields.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw CaptureError.invalidArgument(unknown, "is not a field of this endpoint")
        }
    }
}
