import CaptureCore
import Foundation
import Testing

@testable import CaptureServer

/// RFC 6749 §2.3.1: the id and secret are percent-encoded, then joined by a colon and base64-encoded (RFC 7617).
@Suite struct BasicCredentialsTests {
    static func header(_ scheme: String, _ text: String) -> String {
        "\(scheme) " + Data(text.utf8).base64EncodedString()
    }

    @Test func idAndSecretArePercentDecodedAndPlusStaysPlus() throws {
        let parsed = try #require(try BasicCredentials.parse(Self.header("Basic", "my%20app:s%3Acret+with+plus")))
        #expect(parsed.id == "my app" && parsed.secret == "s:cret+with+plus")
        let upper = try #require(try BasicCredentials.parse(Self.header("BASIC", "app:") + "  "))
        #expect(upper.id == "app" && upper.secret == "")
        let accents = try #require(try BasicCredentials.parse(Self.header("basic", "caf%C3%A9:\u{E9}t\u{E9}")))
        #expect(accents.id == "café" && accents.secret == "été")
    }

    @Test func otherSchemesAreNotBasic() throws {
        #expect(try BasicCredentials.parse("Bearer abc") == nil)
        #expect(try BasicCredentials.parse("Basi") == nil)
        #expect(try BasicCredentials.parse("Basicx abc") == nil)
    }

    @Test func brokenBasicIsAnInvalidClient() throws {
        for header in [
            "Basic not base64!", Self.header("Basic", "no colon"), "Basic " + Data([0xFF, 0x3A, 0x41]).base64EncodedString(),
        ] {
            #expect(throws: CaptureError.invalidClient) { try BasicCredentials.parse(header) }
        }
        // A bad escape leaves that part unknown (the client is then refused as unknown).
        let broken = try BasicCredentials.parse(Self.header("Basic", "app%zz:secret"))
        #expect(broken != nil && broken?.id == nil && broken?.secret == "secret")
    }
}
