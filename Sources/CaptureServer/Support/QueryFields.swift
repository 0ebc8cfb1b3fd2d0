import CaptureCore
import Hummingbird

/// A request's URL query as fields (a repeated name: the last value). Like form bodies, refused with the field named
/// when a name or value holds U+0000: no parameter needs it, and PostgreSQL's text cannot hold it.
enum QueryFields {
    static func read(_ request: Request) throws(CaptureError) -> [String: String] {
        var fields: [String: String] = [:]
        for (key, value) in request.uri.queryParameters {
            let name = String(key), text = String(value)
            try refuseNUL(name, naming: "query")
            try refuseNUL(text, naming: name)
            fields[name] = text
        }
        return fields
    }

    static func refuseNUL(_ text: String, naming name: String) throws(CaptureError) {
        if text.utf8.contains(0) { throw .malformedRequest(name, "contains a NUL character (U+0000)") }
    }
}
