import CaptureCore
import Testing

@testable import CaptureServer

@Suite struct FormParserTests {
    @Test func aFormIsItsMediaTypeInAnyCaseWithParametersAndBlanksAround() {
        for form in [
            "application/x-www-form-urlencoded", "Application/X-WWW-Form-URLEncoded", " application/x-www-form-urlencoded\t",
            "application/x-www-form-urlencoded; charset=utf-8", "application/x-www-form-urlencoded ;charset=UTF-8",
        ] {
            #expect(APIRequest.isForm(form), "\(form)")
        }
        for other in [
            "", ";", "application/json", "application/x-www-form-urlencodedx", "application/x-www-form-urlencode",
            "multipart/form-data; boundary=x", "application /x-www-form-urlencoded", "application/x-www-form-urlencoded\u{00A0}",
            "xapplication/x-www-form-urlencoded",
        ] {
            #expect(!APIRequest.isForm(other), "\(other)")
        }
    }

    @Test func decodesPlusAndPercentEscapes() throws {
        let parsed = try FormParser.parse(Array("a=1+2%2B3&b=%C3%A9&empty=&flag".utf8))
        #expect(parsed == ["a": "1 2+3", "b": "é", "empty": "", "flag": ""])
    }

    @Test func refusesTruncatedEscapes() {
        #expect(throws: CaptureError.malformedRequest("a", "malformed percent-encoding")) {
            try FormParser.parse(Array("a=%4".utf8))
        }
    }

    @Test func atMost64ParametersAreRead() throws {
        let sixtyFour = (0..<64).map { "p\($0)=1" }.joined(separator: "&")
        #expect(try FormParser.parse(Array(sixtyFour.utf8)).count == 64)
        // Empty segments are not parameters, so they do not count.
        #expect(try FormParser.parse(Array(("&&" + sixtyFour + "&&").utf8)).count == 64)
        #expect(throws: CaptureError.malformedRequest("body", "more than 64 parameters")) {
            try FormParser.parse(Array((sixtyFour + "&p64=1").utf8))
        }
    }

    @Test func theParameterLimitStopsParsingBeforeTheRestIsRead() {
        // The 65th parameter is refused before the broken escape after it is reached.
        let body = (0..<65).map { "p\($0)=1" }.joined(separator: "&") + "&bad=%zz"
        #expect(throws: CaptureError.malformedRequest("body", "more than 64 parameters")) {
            try FormParser.parse(Array(body.utf8))
        }
    }

    @Test func parameterNamesLongerThan64BytesAreRefused() throws {
        let name = String(repeating: "n", count: 64)
        #expect(try FormParser.parse(Array("\(name)=1".utf8)) == [name: "1"])
        #expect(throws: CaptureError.malformedRequest("body", "a parameter name is longer than 64 bytes")) {
            try FormParser.parse(Array("\(name)n=1".utf8))
        }
    }
}
