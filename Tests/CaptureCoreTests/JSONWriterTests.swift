import Foundation
import Testing

@testable import CaptureCore

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

    /// The hot paths' replies written member by member must be the bytes of the same object through `JSONWriter`.
    @Test func repliesWrittenDirectlyAreTheWritersBytes() {
        let tricky = "a \"quoted\" \\ name\n\u{01} é 漢"
        for scope in ["", "openid profile"] {
            for kind in TokenKind.allCases {
                let record = TokenRecord(
                    kind: kind, hash: "h", userID: "u", clientID: "client \(tricky)", chainID: "c", scope: scope,
                    issuedAt: Date(timeIntervalSince1970: 1_700_000_000.9), expiresAt: Date(timeIntervalSince1970: -5.5))
                let introspection = Introspection(
                    record: record,
                    account: AccountSummary(
                        id: "0c1f-\(tricky)", email: "x@example.com", emailVerified: tricky.count % 2 == 0, disabledAt: nil))
                #expect(introspection.encodedBytes == JSONValue.object(introspection.fields).encodedBytes())
            }
        }
        for receipt in [
            VerifyReceipt.okay(
                email: tricky, emailVerified: true, audience: "https://app.example:8443", expiresMilliseconds: -1, issuer: "i"),
            .okay(
                email: "a@b.example", emailVerified: false, audience: "http://android.library",
                expiresMilliseconds: 1_764_000_000_123, issuer: tricky),
            .failure(reason: tricky),
        ] {
            #expect(receipt.encodedBytes == receipt.json.encodedBytes())
        }
    }
}
