import CaptureJSON
import Foundation
import Testing

@testable import CaptureJSON

@Suite struct JSONWriterTests {
    @Test func compactSortedAndSlashesUnescaped() {
        let value: JSONValue = ["stat": "ok", "b": [1, true, .null], "a": "https://x.example/p", "n": .double(1.5)]
        let text = String(decoding: value.encoded(), as: UTF8.self)
        #expect(text == #"{"a":"https://x.example/p","b":[1,true,null],"n":1.5,"stat":"ok"}"#)
    }

    @Test func escapesWhatJSONRequiresAndKeepsUnicode() throws {
        let tricky = "quote \" backslash \\ newline \n tab \t bell \u{07} nul \u{00} é 漢 😀 </script>"
        let data = JSONValue.object(["v": .string(tricky)]).encoded()
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains(#"\u0007"#) && text.contains(#"\u0000"#) && text.contains(#"\""#) && text.contains(#"\n"#))
        #expect(text.contains("é 漢 😀"))
        let decoded = try #require(try JSONSerialization.jsonObject(with: data) as? [String: String])
        #expect(decoded["v"] == tricky)
    }

    @Test func numbersStayNumbers() throws {
        let value: JSONValue = [
            "i": .int(-9_007_199_254_740_993), "whole": .double(3), "tiny": .double(1e-7), "nan": .double(.nan),
        ]
        let decoded = try #require(try JSONSerialization.jsonObject(with: value.encoded()) as? [String: Any])
        #expect((decoded["i"] as? NSNumber)?.int64Value == -9_007_199_254_740_993)
        #expect((decoded["whole"] as? NSNumber)?.doubleValue == 3)
        #expect((decoded["tiny"] as? NSNumber)?.doubleValue == 1e-7)
        #expect(decoded["nan"] is NSNull)
    }

    @Test func roundTripsThroughTheDecoder() throws {
        let value: JSONValue = ["nested": ["list": [["k": "v"], [], [:]], "empty": ""], "flag": false]
        #expect(try JSONDecoder().decode(JSONValue.self, from: value.encoded()) == value)
    }
}
