import CaptureCore
import Testing

@testable import CaptureServer

@Suite struct FormBodyTests {
    @Test func decodesPlusAndPercentEscapes() throws {
        let parsed = try FormBody.parse(Array("a=1+2%2B3&b=%C3%A9&empty=&flag".utf8))
        #expect(parsed == ["a": "1 2+3", "b": "é", "empty": "", "flag": ""])
    }

    @Test func refusesTruncatedEscapes() {
        #expect(throws: CaptureError.malformedRequest("a", "malformed percent-encoding")) { try FormBody.parse(Array("a=%4".utf8)) }
    }
}
