import CaptureJSON
import Foundation
import Testing

@testable import CaptureCore

/// Introspection and `/verify` write their replies member by member on the hot path.
@Suite struct ReplyBytesTests {
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
