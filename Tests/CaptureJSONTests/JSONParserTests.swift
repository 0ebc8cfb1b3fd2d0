import CaptureJSON
import Foundation
import Testing

/// The parser for untrusted JSON: RFC 8259 conformance, refusals with positions, and every limit.
@Suite struct JSONParserTests {
    func refusal(_ text: String, limits: JSONParser.Limits = .standard) -> JSONParseError? {
        do {
            _ = try JSONParser.parse(text, limits: limits)
            return nil
        } catch {
            return error
        }
    }

    @Test func validDocumentsParseToTheExpectedValues() throws {
        let cases: [(String, JSONValue)] = [
            ("null", .null), ("true", true), ("false", false), ("0", 0), ("-0", 0), ("42", 42),
            ("-9223372036854775808", .int(Int64.min)), ("9223372036854775807", .int(Int64.max)),
            ("9223372036854775808", .double(9.223372036854775808e18)), ("1.5", .double(1.5)),
            ("-2.5e-3", .double(-0.0025)), ("1E2", .double(100)), ("1e+2", .double(100)),
            (#""""#, ""), (#""a\"b\\c\/d\b\f\n\r\t""#, "a\"b\\c/d\u{08}\u{0C}\n\r\t"),
            (#""\u00e9\u6F22""#, "é漢"), (#""\ud83d\ude00""#, "😀"), (#""\u0001""#, "\u{1}"), ("\"é 😀\"", "é 😀"),
            ("[]", []), ("{}", [:]), (" \t\r\n[ 1 , [ ] , { } ] \n", [1, [], [:]]),
            (#"{"a":{"b":[true,null,"x"]},"c":-1}"#, ["a": ["b": [true, .null, "x"]], "c": -1]),
        ]
        for (text, expected) in cases {
            #expect(try JSONParser.parse(text) == expected, "\(text)")
        }
    }

    @Test func whatTheWriterWritesTheParserReadsBack() throws {
        let value: JSONValue = [
            "nested": ["list": [["k": "v"], [], [:]], "empty": ""], "flag": false, "n": .double(0.25), "i": -7,
            "text": "quote \" slash / tab \t bell \u{07} é 😀",
        ]
        #expect(try JSONParser.parse(value.encodedBytes()) == value)
    }

    @Test func eachClassOfInvalidInputIsRefusedWithItsPosition() {
        let cases: [(text: String, offset: Int, says: String)] = [
            ("", 0, "unexpected end of input"),
            ("   ", 3, "unexpected end of input"),
            ("[1,]", 3, "trailing comma"),
            (#"{"a":1,}"#, 7, "trailing comma"),
            ("[1 2]", 3, "expected ',' or ']'"),
            (#"{"a" 1}"#, 5, "expected ':'"),
            ("{a:1}", 1, "expected a string key"),
            ("01", 0, "leading zeros"),
            ("-01", 0, "leading zeros"),
            ("-", 1, "expected a digit"),
            ("1.", 2, "expected a digit"),
            (".5", 0, "unexpected '.'"),
            ("1e", 2, "expected a digit"),
            ("+1", 0, "unexpected '+'"),
            ("1e999", 0, "out of range"),
            ("tru", 0, "invalid literal"),
            ("nul", 0, "invalid literal"),
            ("NaN", 0, "unexpected 'N'"),
            (#""abc"#, 0, "unterminated string"),
            (#"["a\u0000"]"#, 3, "NUL"),
            (#""a\x""#, 2, "invalid escape"),
            (#""\u12G4""#, 1, "four hex digits"),
            (#""\ud83d""#, 1, "unpaired surrogate"),
            (#""\ud83dx""#, 1, "unpaired surrogate"),
            (#""\ud83d\u0041""#, 1, "unpaired surrogate"),
            (#""\ude00""#, 1, "unpaired surrogate"),
            ("\"a\u{01}b\"", 2, "control character"),
            ("\"tab\there\"", 4, "control character"),
            (#"{"a":1,"a":2}"#, 7, "duplicate key \"a\""),
            ("[1] x", 4, "unexpected data after"),
            ("{} {}", 3, "unexpected data after"),
            ("\u{FEFF}[]", 0, "expected a value"),
            ("'a'", 0, "unexpected '''"),
        ]
        for (text, offset, says) in cases {
            guard case .invalid(_, let at)? = refusal(text) else {
                Issue.record("\(text.debugDescription) was not refused as invalid")
                continue
            }
            #expect(at == offset, "\(text.debugDescription)")
            #expect(refusal(text)?.message.contains(says) == true, "\(text.debugDescription): \(refusal(text)?.message ?? "")")
            #expect(refusal(text)?.message.hasSuffix("at byte \(offset)") == true)
        }
    }

    @Test func invalidUTF8InsideAStringIsRefused() {
        let bytes: [UInt8] = [0x22, 0x61, 0xC3, 0x28, 0x22]  // "a" then a broken two-byte sequence
        #expect(throws: JSONParseError.invalid("string is not valid UTF-8", offset: 0)) { try JSONParser.parse(bytes) }
    }

    @Test func nestingDeeperThanTheLimitIsRefusedAtTheOpeningBracket() throws {
        let limit = JSONParser.Limits.standard.maxDepth
        let deepest = String(repeating: "[", count: limit) + String(repeating: "]", count: limit)
        #expect(try JSONParser.parse(deepest) != .null)
        let tooDeep = String(repeating: "[", count: limit + 1) + String(repeating: "]", count: limit + 1)
        #expect(refusal(tooDeep) == .limitExceeded(.depth(limit), offset: limit))
        let objects = String(repeating: #"{"a":"#, count: limit + 1) + "1" + String(repeating: "}", count: limit + 1)
        #expect(refusal(objects) == .limitExceeded(.depth(limit), offset: 5 * limit))
        // The review's payload: 511 levels is refused at level 33 without reading further.
        let attack = String(repeating: "[", count: 511) + "1" + String(repeating: "]", count: 511)
        #expect(refusal(attack) == .limitExceeded(.depth(limit), offset: limit))
    }

    @Test func moreValuesThanTheLimitAreRefused() throws {
        let limits = JSONParser.Limits.standard
        // The top-level array is one value, so it may hold maxValues - 1 elements.
        let fits = "[" + Array(repeating: "0", count: limits.maxValues - 1).joined(separator: ",") + "]"
        #expect(try JSONParser.parse(fits) != .null)
        let over = "[" + Array(repeating: "0", count: limits.maxValues).joined(separator: ",") + "]"
        #expect(refusal(over) == .limitExceeded(.values(limits.maxValues), offset: over.utf8.count - 2))
        // Object members count the same way (a wide object is over the size limit first, so raise that here).
        var roomy = limits
        roomy.maxInputBytes = 1_000_000
        let members = (0..<limits.maxValues).map { #""k\#($0)":0"# }
        let wide = "{" + members.joined(separator: ",") + "}"
        let lastMember = wide.utf8.count - 1 - members.last!.utf8.count
        #expect(
            refusal(wide, limits: roomy)
                == .limitExceeded(.values(limits.maxValues), offset: lastMember + #""k9999":"#.utf8.count))
    }

    @Test func aStringLongerThanTheLimitIsRefusedAtItsStart() throws {
        let limit = JSONParser.Limits.standard.maxStringBytes
        #expect(
            try JSONParser.parse("\"" + String(repeating: "x", count: limit) + "\"")
                == .string(String(repeating: "x", count: limit)))
        #expect(
            refusal("[\"" + String(repeating: "x", count: limit + 1) + "\"]") == .limitExceeded(.stringBytes(limit), offset: 1))
        // Counted in decoded UTF-8 bytes, so combining marks and escapes cannot slip past it.
        let marks = "\"a" + String(repeating: "\u{301}", count: limit / 2) + "\""
        #expect(refusal(marks) == .limitExceeded(.stringBytes(limit), offset: 0))
        let escaped = "\"" + String(repeating: #"\u00e9"#, count: limit / 2 + 1) + "\""
        #expect(refusal(escaped) == .limitExceeded(.stringBytes(limit), offset: 0))
        let key = "{\"" + String(repeating: "k", count: limit + 1) + "\":1}"
        #expect(refusal(key) == .limitExceeded(.stringBytes(limit), offset: 1))
    }

    @Test func aNumberLongerThanTheLimitIsRefused() {
        let limit = JSONParser.Limits.standard.maxNumberBytes
        #expect(refusal("[" + String(repeating: "1", count: limit + 1) + "]") == .limitExceeded(.numberBytes(limit), offset: 1))
        #expect(refusal("0." + String(repeating: "1", count: limit)) == .limitExceeded(.numberBytes(limit), offset: 0))
    }

    @Test func aDocumentLargerThanTheLimitIsRefusedBeforeParsing() {
        let limits = JSONParser.Limits.standard
        // Invalid from byte 0, yet the size is what is reported: nothing was read.
        let big = String(repeating: "x", count: limits.maxInputBytes + 1)
        #expect(refusal(big) == .limitExceeded(.inputBytes(limits.maxInputBytes), offset: limits.maxInputBytes))
        let custom = JSONParser.Limits(maxInputBytes: 4, maxDepth: 1, maxValues: 2, maxStringBytes: 1, maxNumberBytes: 1)
        #expect(refusal("[1,2]", limits: custom) == .limitExceeded(.inputBytes(4), offset: 4))
        #expect(refusal("[[]]", limits: custom) == .limitExceeded(.depth(1), offset: 1))
        #expect(refusal("[1,2", limits: custom) == .limitExceeded(.values(2), offset: 3))
    }
}
