import CaptureCore
import CaptureTestSupport
import Foundation
import Testing

/// RFC 4648 §5 without padding, as tokens, PKCE challenges and JOSE use it.
@Suite struct Base64URLTests {
    @Test func theRFCVectorsUnpadded() {
        let vectors = ["": "", "f": "Zg", "fo": "Zm8", "foo": "Zm9v", "foob": "Zm9vYg", "fooba": "Zm9vYmE", "foobar": "Zm9vYmFy"]
        for (text, encoded) in vectors {
            #expect(Data(text.utf8).base64URLEncoded() == encoded)
        }
    }

    @Test func theURLSafeSymbolsReplacePlusAndSlash() {
        #expect(Data([0xFB, 0xFF]).base64URLEncoded() == "-_8")
        #expect(Data([0xFB, 0xEF, 0xBE]).base64URLEncoded() == "----")
        #expect(Data([0xFF, 0xFF, 0xFF]).base64URLEncoded() == "____")
    }

    @Test func everyLengthRoundTripsAndAgreesWithFoundation() {
        var generator = SeededGenerator()
        for length in 0..<70 {
            let bytes = Data((0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) })
            let encoded = bytes.base64URLEncoded()
            let foundation = bytes.base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            #expect(encoded == foundation)
            #expect(Data(base64URLEncoded: encoded) == bytes)
        }
    }

    @Test func hexIsTwoLowerCaseDigitsPerByteInOrder() {
        let every = Data((0...255).map { UInt8($0) })
        let expected = (0...255).map { String(format: "%02x", $0) }.joined()
        #expect(every.hexString == expected)
        #expect(Data().hexString == "")
        #expect(Data([0x00, 0x0F, 0xF0, 0xFF]).hexString == "000ff0ff")
    }
}
