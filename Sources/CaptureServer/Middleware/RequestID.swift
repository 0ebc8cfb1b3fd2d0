import HTTPTypes
import Hummingbird

/// Each request's id: the caller's `X-Request-Id` when it is short and plain (at most 64 of `A-Z a-z 0-9 . _ -`), so
/// a proxy's id follows the request through; otherwise a new one. `RequestPipelineMiddleware` puts it into the request
/// logger's metadata (`hb.request.id`, replacing Hummingbird's own, so every line of the request names one id) and
/// back to the caller as `X-Request-Id`.
enum RequestID {
    static let header = HTTPField.Name("X-Request-Id")!
    static let metadataKey = "hb.request.id"

    /// The caller's id if usable, else a new one.
    static func of(_ request: Request) -> String {
        request.headers.value(header).flatMap { isUsable($0) ? $0 : nil } ?? generate()
    }

    /// Nothing that could break a log line or a header, nor anything long enough to carry a payload.
    static func isUsable(_ id: String) -> Bool {
        let bytes = id.utf8
        guard (1...64).contains(bytes.count) else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
                true
            default: false
            }
        }
    }

    /// 128 random bits as 32 hex digits.
    static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        let high = generator.next() as UInt64
        let low = generator.next() as UInt64
        return hex(high) + hex(low)
    }

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
