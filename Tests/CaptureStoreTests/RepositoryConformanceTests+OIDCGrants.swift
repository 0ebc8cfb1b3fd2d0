import CaptureCore
import CaptureStorage
import CaptureTestSupport
import Foundation
import Testing

/// Issue 53: OpenID Connect grants on both backends: stored whole, found by chain and by browser session, removed
/// with their session, their user or when they expire.
extension RepositoryConformanceTests {
    @Test(arguments: TestBackend.allCases)
    func oidcGrantsAreKeptByChainAndSession(_ backend: TestBackend) async throws {
        let (service, cli) = try await Self.twoStores(backend)
        let user = try await cli.repositories.users.insert(Self.user("oidc@example.com"))
        func grant(_ chain: String, session: String, expires: TimeInterval = 3600) -> OIDCGrant {
            OIDCGrant(
                chainID: chain, issuer: "https://id.example/c/login", clientID: "web", userID: user.id,
                scopes: ["openid", "email"], nonce: chain == "c1" ? "n" : nil, authTime: Self.now,
                methods: ["pwd", "otp", "mfa"], acr: chain == "c1" ? "urn:x" : nil, sessionID: session,
                expiresAt: Self.now + expires)
        }
        let grants = cli.repositories.oidcGrants
        try await grants.insert(grant("c1", session: "s1"))
        try await grants.insert(grant("c2", session: "s1"))
        try await grants.insert(grant("c3", session: "s2", expires: -1))
        #expect(try await service.repositories.oidcGrants.find(chainID: "c1") == grant("c1", session: "s1"))
        #expect(try await service.repositories.oidcGrants.find(chainID: "none") == nil)
        #expect(Set(try await service.repositories.oidcGrants.grants(inSession: "s1").map(\.chainID)) == ["c1", "c2"])
        #expect(try await grants.purge(expiredBefore: Self.now) == 1)
        #expect(try await grants.removeSession("s1") == 2)
        #expect(try await service.repositories.oidcGrants.grants(inSession: "s1").isEmpty)
        try await grants.insert(grant("c4", session: "s3"))
        #expect(try await cli.repositories.users.delete(id: user.id))
        #expect(try await service.repositories.oidcGrants.find(chainID: "c4") == nil, "gone with its user")
    }
}
