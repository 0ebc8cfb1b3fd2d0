import CaptureCore
import Foundation
import Testing

/// A client's own pages (`siteName`, `verifyEmailUrl`, `passwordRecoverUrl`, Janrain's `site_name`,
/// `verify_email_url`, `password_recover_url`): a mailed code's link may lead only to an origin the client already
/// names, and the code travels only in the fragment.
@Suite struct ClientPagesTests {
    func load(client clientJSON: String) throws -> ServiceSettings {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pages-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let json = #"""
            {"clients": [{"clientId": "site-app", "allowedOrigins": ["https://www.example.com"],
              "redirectUris": ["https://app.example.com/done", "/flows/webViewSignIn"], \#(clientJSON)}]}
            """#
        try Data(json.utf8).write(to: directory.appendingPathComponent("service.json"))
        return try ServiceSettings.load(file: directory.appendingPathComponent("service.json"))
    }

    func refusal(_ clientJSON: String) -> SettingsError? {
        #expect(throws: SettingsError.self) { try load(client: clientJSON) }
    }

    @Test func aLinkLeadsOnlyToAnOriginTheClientNames() throws {
        for bad in [
            "https://attacker.example/reset", "http://www.example.com/reset", "https://www.example.com.attacker.example/",
            "https://www.example.com/reset#screen=x", "javascript:alert(1)", "/flows/webViewSignIn", "ftp://www.example.com/",
            "https://user@www.example.com/reset",
        ] {
            #expect(refusal(#""passwordRecoverUrl": "\#(bad)""#)?.key == "clients[0].passwordRecoverUrl", "\(bad)")
            #expect(refusal(#""verifyEmailUrl": "\#(bad)""#)?.key == "clients[0].verifyEmailUrl", "\(bad)")
        }
        let settings = try load(
            client: #""verifyEmailUrl": "https://www.example.com/verify", "passwordRecoverUrl": "https://app.example.com/r""#)
        #expect(
            ClientPages(settings.clients.first { $0.clientId == "site-app" }).verifyEmailURL == "https://www.example.com/verify")
        #expect(ClientPages(settings.clients.first { $0.clientId == "other" }).passwordRecoverURL == nil)
    }

    @Test func aSiteNameIsADisplayName() throws {
        #expect(refusal(#""siteName": "  ""#)?.key == "clients[0].siteName")
        #expect(refusal(#""siteName": "Fern\u0007way""#)?.key == "clients[0].siteName")
        #expect(refusal(#""siteName": "\#(String(repeating: "x", count: 121))""#)?.key == "clients[0].siteName")
        let settings = try load(client: #""siteName": "Fernway <Rewards>""#)
        #expect(ClientPages(settings.clients.first { $0.clientId == "site-app" }).siteName == "Fernway <Rewards>")
    }

    @Test func theCodeTravelsOnlyInTheFragmentOfJanrainsScreen() throws {
        let pages = ClientPages(
            siteName: "Fernway", verifyEmailURL: "https://www.example.com/verify?lang=de",
            passwordRecoverURL: "https://www.example.com/account?screenToRender=resetPasswordRequestCode")
        let reset = try #require(pages.link(screen: "resetPassword", code: "K7QD-3MXP", email: "a+b@example.com"))
        #expect(
            reset == "https://www.example.com/account?screenToRender=resetPasswordRequestCode"
                + "#screen=resetPasswordRequestCode&code=K7QD-3MXP&email=a%2Bb@example.com")
        let verify = try #require(pages.link(screen: "verifyEmail", code: "K7QD-3MXP", email: "a@example.com"))
        #expect(
            verify == "https://www.example.com/verify?lang=de&screenToRender=verifyEmail"
                + "#screen=verifyEmail&code=K7QD-3MXP&email=a@example.com")
        #expect(ClientPages(siteName: "Fernway").link(screen: "verifyEmail", code: "K7QD-3MXP", email: "a@example.com") == nil)
        #expect(pages.janrainClientSettings["password_recover_url"] == pages.passwordRecoverURL)
        #expect(pages.janrainClientSettings["site_name"] == "Fernway")
        #expect(ClientPages().janrainClientSettings.isEmpty)
    }
}
