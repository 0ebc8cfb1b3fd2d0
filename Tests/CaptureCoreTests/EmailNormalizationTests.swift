import CaptureCore
import Foundation
import Testing

/// An address is compared as `User.normalize(email:)` writes it, whether a page, a backend's filter or an import
/// sent it: without surrounding white space of any kind, lower-cased.
struct EmailNormalizationTests {
    @Test func surroundingWhiteSpaceOfEveryKindGoesAndCaseFolds() {
        let cases = [
            "Ann@Example.com": "ann@example.com",
            " ann@example.com\n": "ann@example.com",
            "\t\r\nann@example.com": "ann@example.com",
            "\u{3000}ann@example.com\u{85}": "ann@example.com",
            "\u{A0}ann@example.com\u{2029}": "ann@example.com",
            "ann @example.com": "ann @example.com",
            "": "",
            " \n ": "",
        ]
        for (sent, kept) in cases {
            #expect(User.normalize(email: sent) == kept, "\(sent.debugDescription)")
            // The same as Foundation's trimming, which the fast path skips only when there is nothing to trim.
            #expect(kept == sent.trimmingCharacters(in: .whitespacesAndNewlines).lowercased())
        }
    }
}
