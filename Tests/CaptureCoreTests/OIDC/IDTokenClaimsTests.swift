import CaptureCore
import CaptureJSON
import Foundation
import Testing

/// The ID token's claims and the claims each scope releases (docs/oidc.md).
@Suite struct IDTokenClaimsTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// OpenID Connect Core A.3's example: the access token and its `at_hash`.
    @Test func atHashIsTheLeftHalfOfTheTokensSHA256() {
        #expect(IDTokenClaims.tokenHash("jHkWEdUXMU1BwAsC4vtUsZwnNvTIxEl0z9K3vx5KF0Y") == "77QmUPtjPfzWtF2AnpK9RQ")
    }

    @Test func theNonceGoesOnlyIntoTheFirstToken() {
        let grant = OIDCGrant(
            chainID: "c", issuer: "https://id.example", clientID: "app", userID: "uuid-1", scopes: ["openid"],
            nonce: "n", authTime: Self.now - 30, methods: ["pwd", "otp", "mfa"], acr: nil, sessionID: "s",
            expiresAt: Self.now + 3600)
        let first = IDTokenClaims.claims(of: grant, accessToken: "t", includeNonce: true, now: Self.now, lifetime: 600)
        #expect(first["nonce"] == "n" && first["sub"] == "uuid-1" && first["aud"] == "app" && first["sid"] == "s")
        #expect(first["exp"] == .int(1_800_000_600) && first["auth_time"] == .int(1_799_999_970))
        #expect(first["amr"] == ["pwd", "otp", "mfa"] && first["acr"] == nil)
        let refreshed = IDTokenClaims.claims(of: grant, accessToken: "u", includeNonce: false, now: Self.now, lifetime: 600)
        #expect(refreshed["nonce"] == nil && refreshed["at_hash"] != first["at_hash"])
    }

    @Test func methodsNameHowThePersonSignedIn() {
        #expect(AuthenticationMethods.of(provider: "capture") == ["pwd"])
        #expect(AuthenticationMethods.of(provider: "capture", secondFactor: true) == ["pwd", "otp", "mfa"])
        #expect(AuthenticationMethods.of(provider: "passkey") == ["hwk"])
        #expect(AuthenticationMethods.of(provider: "passkey", syncedPasskey: true) == ["swk"])
        #expect(AuthenticationMethods.of(provider: "google") == ["fed"])
    }

    @Test func scopesReleaseTheirClaimsAndNothingEmpty() {
        var user = User(id: "uuid-1", email: "a@example.com", passwordHash: nil, createdAt: Self.now)
        user.profile = [
            "displayName": "Ann", "givenName": "", "mobileNumber": "+15550100",
            "primaryAddress": ["city": "Oslo", "zip": "0150"],
        ]
        let mapping = ClaimMapping(settings: OpenIDConnectSettings())
        #expect(mapping.claims(of: user, scopes: ["openid"]) == ["sub": "uuid-1"])
        let all = mapping.claims(of: user, scopes: ["openid", "profile", "email", "phone", "address"])
        #expect(all["name"] == "Ann" && all["given_name"] == nil && all["email_verified"] == false)
        #expect(all["phone_number"] == "+15550100" && all["phone_number_verified"] == false)
        #expect(all["address"] == ["locality": "Oslo", "postal_code": "0150"])
        var settings = OpenIDConnectSettings()
        settings.claims = ["profile": ["nickname": "displayName"]]
        #expect(ClaimMapping(settings: settings).claims(of: user, scopes: ["profile"]) == ["sub": "uuid-1", "nickname": "Ann"])
    }
}
