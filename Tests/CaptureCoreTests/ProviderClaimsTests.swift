@testable import CaptureCore
import Foundation
import Testing

/// What a provider's claims say about the user's address: which claim holds it (the claim mapping), and when the
/// provider vouches for it (so no verification code is mailed).
@Suite struct ProviderClaimsTests {
    static func login(_ claims: [String: JSONValue]) -> SocialLogin {
        var login = SocialLogin(
            stateHash: "h", provider: "p", clientID: "c", flow: "f", locale: "en-US", responseType: "token",
            returnURL: "https://app.example/", nonce: "n", codeVerifier: "v", createdAt: Date())
        login.claims = claims
        return login
    }

    @Test func theAddressComesFromTheClaimTheMappingNames() {
        let mapped = SocialProviderSettings(
            name: "corp", displayName: "Corp", issuer: "https://id.corp.example", clientId: "c",
            claims: ["email": "mail", "displayName": "name"])
        #expect(mapped.emailClaim == "mail")
        #expect(SocialProviderSettings(name: "g", displayName: "G", issuer: "https://g.example", clientId: "c").emailClaim == "email")
        let login = Self.login(["mail": "Ada@Corp.example", "email": "other@example.com"])
        #expect(login.providerEmail(claim: "mail") == "Ada@Corp.example")
        #expect(Self.login(["mail": ""]).providerEmail(claim: "mail") == nil)
    }

    @Test func theProviderVouchesOnlyWhenItSaysSoAboutThatAddress() {
        #expect(Self.login(["email": "ada@example.com", "email_verified": true]).vouches(for: "ada@example.com", claim: "email"))
        // Some providers send the flag as a string.
        #expect(Self.login(["email": "Ada@Example.com", "email_verified": "true"]).vouches(for: "ada@example.com", claim: "email"))
        #expect(!Self.login(["email": "ada@example.com", "email_verified": false]).vouches(for: "ada@example.com", claim: "email"))
        #expect(!Self.login(["email": "ada@example.com", "email_verified": "false"]).vouches(for: "ada@example.com", claim: "email"))
        #expect(!Self.login(["email": "ada@example.com"]).vouches(for: "ada@example.com", claim: "email"))
        // Typed another address than the provider's: not vouched for.
        #expect(!Self.login(["email": "ada@example.com", "email_verified": true]).vouches(for: "eve@example.com", claim: "email"))
    }
}

@Suite struct ProviderErrorLoggingTests {
    @Test func aProviderErrorReachesTheLogOnlyAsRFC6749Characters() {
        #expect(CaptureService.loggable(providerError: "access_denied") == "access_denied")
        #expect(CaptureService.loggable(providerError: "server_error") == "server_error")
        let forged = CaptureService.loggable(providerError: "x\n2026-01-01 info capture-server: admin signed in")
        #expect(!forged.contains("\n") && !forged.contains("admin signed in"))
        #expect(!CaptureService.loggable(providerError: String(repeating: "a", count: 65)).contains("aaaa"))
        #expect(!CaptureService.loggable(providerError: "bad\"quote").contains("\""))
    }
}
