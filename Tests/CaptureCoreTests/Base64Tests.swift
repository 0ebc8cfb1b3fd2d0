import CaptureCore
import CaptureTestSupport
import Foundation
import Testing

/// `Base64.decode`: RFC 4648 §4 with padding (HTTP Basic) and §5 unpadded (JOSE), from bytes: what Foundation
/// decodes, the same bytes; broken encodings refused.
@Suite struct Base64Tests {
    @Test func theRFCVectorsDecodeInBothAlphabets() {
        let vectors = [
            "": "", "f": "Zg==", "fo": "Zm8=", "foo": "Zm9v", "foob": "Zm9vYg==", "fooba": "Zm9vYmE=", "foobar": "Zm9vYmFy",
        ]
        for (text, encoded) in vectors {
            #expect(Base64.decode(encoded.utf8) == Array(text.utf8))
            #expect(Base64.decode(encoded.replacingOccurrences(of: "=", with: "").utf8, url: true) == Array(text.utf8))
        }
    }

    @Test func everyLengthAgreesWithFoundation() {
        var generator = SeededGenerator()
        for length in 0..<70 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let encoded = Data(bytes).base64EncodedString()
            #expect(Base64.decode(encoded.utf8) == bytes)
            #expect(Base64.decode(Data(bytes).base64URLEncoded().utf8, url: true) == bytes)
        }
    }

    @Test func brokenEncodingsAreRefused() {
        // Missing or misplaced padding, a length no encoding has, symbols of the other alphabet, blanks. Foundation
        // refuses most of these too; it takes "Zm=v", "Zm9v=", "Zm9vYg===" and "====" (as 0x00), which RFC 4648
        // does not allow and neither does this decoder.
        let refused = [
            "Zg", "Zm8", "Zg=", "Z===", "Zg==Zg==", "Zm=v", "Zm9v=", "Zm 9v", "Zm9-", "Zm9_", "Zm9v\n", "Zm9vYg===", "====",
        ]
        for text in refused {
            #expect(Base64.decode(text.utf8) == nil, "\(text) was decoded")
        }
        for text in ["Zg==", "Zm8=", "Zm9+", "Zm9/", "Z", "Zm9vY", "Zm 9"] {
            #expect(Base64.decode(text.utf8, url: true) == nil, "\(text) was decoded as base64url")
        }
    }
}
