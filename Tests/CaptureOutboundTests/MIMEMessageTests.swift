import CaptureCore
import Foundation
import Testing

@testable import CaptureOutbound

/// The message bytes themselves: what a relay would see, without a server.
@Suite struct MIMEMessageTests {
    static let date = Date(timeIntervalSince1970: 1_800_000_000)

    static func lines(_ mime: MIMEMessage) -> [Substring] {
        String(decoding: mime.bytes, as: UTF8.self).split(separator: "\r\n", omittingEmptySubsequences: false)
    }

    @Test func everyLineEndsInCRLFAndStaysWithinSMTPLimits() throws {
        let text = "Zeile eins\nZeile zwei\rZeile drei\r\n" + String(repeating: "Fußgängerübergänge ", count: 30)
        let mime = try MIMEMessage(
            MailMessage(
                from: "a@capture.test", to: "b@example.test", subject: "Grüße", text: text, html: "<p>\(text)</p>",
                messageID: "x"), date: Self.date, boundary: "B")
        let raw = String(decoding: mime.bytes, as: UTF8.self)
        // No bare CR or LF anywhere.
        #expect(!raw.replacingOccurrences(of: "\r\n", with: "").contains(where: { $0 == "\r" || $0 == "\n" }))
        #expect(!mime.bytes.isEmpty && mime.bytes.allSatisfy { $0 < 0x80 })
        #expect(Self.lines(mime).count > 1 && Self.lines(mime).allSatisfy { $0.utf8.count <= 76 })
    }

    @Test func headersAreTheOnesRFC5322Asks() throws {
        let mime = try MIMEMessage(
            MailMessage(
                from: "Ops <ops@capture.test>", to: "b@example.test", subject: "Plain subject", text: "hi",
                messageID: "abc@capture.test"), date: Self.date, boundary: "B")
        let lines = Self.lines(mime)
        #expect(
            lines.prefix(9) == [
                "Date: Fri, 15 Jan 2027 08:00:00 +0000", "From: \"Ops\" <ops@capture.test>", "To: b@example.test",
                "Subject: Plain subject", "Message-ID: <abc@capture.test>", "MIME-Version: 1.0",
                "Content-Type: text/plain; charset=UTF-8", "Content-Transfer-Encoding: quoted-printable", "",
            ])
        #expect(mime.from.address == "ops@capture.test")
    }

    @Test func nonASCIISubjectBecomesEncodedWordsThatDecodeBack() throws {
        let subject = String(repeating: "パスワード再設定 ", count: 6) + "✉️"
        let encoded = EncodedWord.unstructured(subject)
        let words = encoded.components(separatedBy: "\r\n ")
        #expect(words.count > 1)
        #expect(words.allSatisfy { $0.count <= 75 && $0.hasPrefix("=?UTF-8?B?") && $0.hasSuffix("?=") })
        let decoded = words.map { word in
            Data(base64Encoded: String(word.dropFirst(10).dropLast(2))).map { String(decoding: $0, as: UTF8.self) }!
        }.joined()
        #expect(decoded == subject)
    }

    @Test func quotedPrintableProtectsDotsTrailingSpaceAndEquals() {
        #expect(QuotedPrintable.encode(".\r\nend  \r\na=b") == "=2E\r\nend =20\r\na=3Db")
        #expect(QuotedPrintable.encode("é") == "=C3=A9")
    }

    @Test(arguments: [
        "no-at-sign", "a@b\u{0}c", "two@x.test, three@y.test", "<>", "sp ace@x.test",
        // Issue 27: a display name or brackets would send the code to another mailbox than the stored address.
        "x<mallory@attacker.example>", "Mallory <mallory@attacker.example>",
    ])
    func addressesThatAreNotOnePlainAddressAreRefused(address: String) {
        #expect(throws: MailDeliveryError.self) {
            try MIMEMessage(
                MailMessage(from: "a@capture.test", to: address, subject: "s", text: "t", messageID: "x"),
                date: Self.date,
                boundary: "B")
        }
    }
}
