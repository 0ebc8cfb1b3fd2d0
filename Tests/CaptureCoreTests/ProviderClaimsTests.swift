import CaptureJSON
import Crypto
import Foundation
import Testing

@testable import CaptureCore

/// What a provider's claims say about the user's address: which claim holds it (the claim mapping), and when the
/// provider vouches for it (so no verification code is mailed).
@Suite struct ProviderClaimsTests {
    static func login(_ claims: [String: JSONValue]) -> SocialLogin {
        var login = SocialLogin(
            stateHash: "h", provider: "p", clientID: "c", flow: "f", locale: "en-US", responseType: .token,
            returnURL: "https://app.example/", nonce: "n", codeVerifier: "v", createdAt: Date())
        login.claims = claims
        return login
    }

    @Test func theAddressComesFromTheClaimTheMappingNames() {
        let mapped = SocialProviderSettings(
            name: "corp", displayName: "Corp", issuer: "https://id.corp.example", clientId: "c",
            claims: ["email": "mail", "displayName": "name"])
        #expect(mapped.emailClaim == "mail")
        #expect(
            SocialProviderSettings(name: "g", displayName: "G", issuer: "https://g.example", clientId: "c").emailClaim == "email")
        let login = Self.login(["mail": "Ada@Corp.example", "email": "other@example.com", "email_verified": true])
        #expect(login.address(claim: "mail", trustEmail: false).given == "Ada@Corp.example")
        #expect(login.address(claim: "mail", trustEmail: false).vouched == "ada@corp.example")
        #expect(
            Self.login(["mail": ""]).address(claim: "mail", trustEmail: true)
                == ProviderAddress(claims: [:], claim: "mail", trustEmail: true))
    }

    /// docs/contract.md §15: an address counts only when the provider vouches for it, or the operator trusts the provider.
    @Test func theProviderVouchesOnlyWhenItSaysSoAboutThatAddress() {
        func vouched(_ claims: [String: JSONValue], _ email: String = "ada@example.com", trust: Bool = false) -> Bool {
            Self.login(claims).address(claim: "email", trustEmail: trust).vouches(for: email)
        }
        #expect(vouched(["email": "ada@example.com", "email_verified": true]))
        // Some providers send the flag as a string.
        #expect(vouched(["email": "Ada@Example.com", "email_verified": "true"]))
        #expect(!vouched(["email": "ada@example.com", "email_verified": false]))
        #expect(!vouched(["email": "ada@example.com", "email_verified": "false"]))
        #expect(!vouched(["email": "ada@example.com", "email_verified": 1]))
        #expect(!vouched(["email": "ada@example.com"]))
        #expect(Self.login(["email": "ada@example.com"]).address(claim: "email", trustEmail: false).vouched == nil)
        // Typed another address than the provider's: not vouched for.
        #expect(!vouched(["email": "ada@example.com", "email_verified": true], "eve@example.com"))
        // An operator's trustEmail stands in for the claim, never for another address.
        #expect(vouched(["email": "ada@example.com"], trust: true))
        #expect(!vouched(["email": "ada@example.com"], "eve@example.com", trust: true))
        #expect(!vouched([:], trust: true))
    }

    /// docs/contract.md §15: a travelled token needs its starter's verifier; a token that never travelled needs none.
    @Test func aTravelledTokenIsRedeemedOnlyWithItsStartersVerifier() throws {
        let verifier = "a-verifier-of-forty-three-characters-or-more-0123"
        let challenge = try InitiatorBinding.challenge(
            Data(SHA256.hash(data: Data(verifier.utf8))).base64URLEncoded(), method: "S256")
        #expect(InitiatorBinding.admits(verifier, challenge: challenge))
        #expect(!InitiatorBinding.admits(nil, challenge: challenge))
        #expect(!InitiatorBinding.admits("", challenge: challenge))
        #expect(!InitiatorBinding.admits(verifier + "x", challenge: challenge))
        #expect(!InitiatorBinding.admits(challenge, challenge: challenge), "the challenge itself is no verifier")
        #expect(InitiatorBinding.admits(nil, challenge: nil))
        #expect(throws: CaptureError.self) { try InitiatorBinding.challenge(nil, method: nil) }
        #expect(throws: CaptureError.self) { try InitiatorBinding.challenge(challenge, method: "plain") }
        #expect(throws: CaptureError.self) { try InitiatorBinding.challenge("short", method: "S256") }
    }
}

@Suite struct ProviderErrorLoggingTests {
    @Test func aProviderErrorReachesTheLogOnlyAsRFC6749Characters() {
        #expect(SocialService.loggable(providerError: "access_denied") == "access_denied")
        #expect(SocialService.loggable(providerError: "server_error") == "server_error")
        let forged = SocialService.loggable(providerError: "x\n2026-01-01 info capture-server: admin signed in")
        #expect(!forged.contains("\n") && !forged.contains("admin signed in"))
        #expect(!SocialService.loggable(providerError: String(repeating: "a", count: 65)).contains("aaaa"))
        #expect(!SocialService.loggable(providerError: "bad\"quote").contains("\""))
    }
}
