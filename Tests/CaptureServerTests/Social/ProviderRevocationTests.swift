import CaptureCore
import CaptureJSON
import CaptureOutbound
import CaptureServer
import CaptureTestSupport
import Foundation
import Testing

/// Deleting an account revokes the refresh tokens its provider sign-ins left with us (RFC 7009), against the real
/// OpenID Connect provider on loopback, whose discovery publishes its revocation endpoint (Authlib's, over the
/// provider's own token store): the provider's own list of live tokens is the proof.
@Suite(.serialized) struct ProviderRevocationTests {
    @Test func deletingTheAccountRevokesTheProvidersTokenWhichWasKeptSealed() async throws {
        try await SocialSignInTests.withProvider { issuer, api, world, service in
            let access = try await Self.signIn(api, issuer: issuer, subject: "rita")
            let live = try await Self.liveTokens(issuer, "rita")
            #expect(live.count == 1)
            let user = try #require(try await service.store.users.find(email: "rita@example.com"))
            let kept = try #require(try await service.store.identities.list(userID: user.id).first?.providerToken)
            #expect(!kept.contains(live[0]), "a copy of the database does not hold the provider's token")

            let deleted = try await api.post(
                "/oauth/deactivate_account", AccountDeletionTests.deletion(access, password: nil))
            #expect(deleted.stat == "ok", "\(deleted.json)")
            try await Self.eventually { try await Self.liveTokens(issuer, "rita").isEmpty }
            // The provider answered; the service records it just after.
            try await Self.eventually {
                try await !service.store.audit.list(AuditFilter(action: "provider.token_revoked")).isEmpty
            }
            let links = try await service.store.identities.list(userID: user.id)
            #expect(links.count == 1 && links.allSatisfy { $0.providerToken == nil }, "\(links)")
            #expect(try await service.store.providerRevocations.pendingCount() == 0)
            let audit = try await service.store.audit.list(AuditFilter(action: "provider.token_revoked"))
            #expect(audit.map(\.outcome) == [AuditEntry.success] && audit.map(\.target) == ["mock"])
        }
    }

    @Test func aProviderThatIsDownDoesNotHoldUpTheDeletionAndIsTriedAgain() async throws {
        try await SocialSignInTests.withProvider { issuer, api, world, service in
            let access = try await Self.signIn(api, issuer: issuer, subject: "ugo")
            try await Self.fault(issuer, ["revoke": "unavailable"])
            let deleted = try await api.post(
                "/oauth/deactivate_account", AccountDeletionTests.deletion(access, password: nil))
            #expect(deleted.stat == "ok", "\(deleted.json)")
            #expect(try await api.post("/entity", ["access_token": access]).stat == "error")
            try await Self.eventually {
                try await !service.store.audit.list(AuditFilter(action: "provider.token_revoked")).isEmpty
            }
            let failed = try #require(try await service.store.audit.list(AuditFilter(action: "provider.token_revoked")).first)
            #expect(failed.outcome == "failed" && failed.detail?.contains("HTTP 503") == true, "\(failed)")
            #expect(try await service.store.providerRevocations.pendingCount() == 1)
            #expect(try await Self.liveTokens(issuer, "ugo").count == 1)

            // Back up: not before the retry is due, then at the purge pass.
            try await Self.fault(issuer, nil)
            #expect(try await service.housekeeping.purgeExpired()["provider_tokens_revoked"] == 0)
            world.time.advance(by: 61)
            #expect(try await service.housekeeping.purgeExpired()["provider_tokens_revoked"] == 1)
            #expect(try await Self.liveTokens(issuer, "ugo").isEmpty)
            #expect(try await service.store.providerRevocations.pendingCount() == 0)
        }
    }

    @Test func aNewSignInRevokesTheTokenItReplacesAndErasureRevokesTheLast() async throws {
        try await SocialSignInTests.withProvider { issuer, api, world, service in
            _ = try await Self.signIn(api, issuer: issuer, subject: "vera")
            _ = try await Self.signIn(api, issuer: issuer, subject: "vera")
            try await Self.eventually { try await Self.liveTokens(issuer, "vera").count == 1 }
            let user = try #require(try await service.store.users.find(email: "vera@example.com"))
            _ = try await service.admin.deleteUser(user.id)
            try await Self.eventually { try await Self.liveTokens(issuer, "vera").isEmpty }
        }
    }

    // MARK: support

    /// A new or returning person signs in with the provider in the page; returns their access token.
    static func signIn(_ api: API, issuer: String, subject: String) async throws -> String {
        try await SocialSignInTests.provide(
            issuer, subject: subject, claims: ["email": .string("\(subject)@example.com"), "email_verified": true])
        let token = try #require(try await SocialSignInTests.roundTrip(api, subject: subject).fragment["capture_social_token"])
        let reply = try await SocialSignInTests.authNative(api, token: token)
        return try #require(reply["access_token"] as? String, "\(reply.json)")
    }

    static func liveTokens(_ issuer: String, _ subject: String) async throws -> [String] {
        let reply = try await SocialSignInTests.http.send(
            OutboundHTTPRequest(url: "\(issuer)/_refresh_tokens?sub=\(subject)", allowsPlainHTTP: true))
        let document = try #require(try JSONSerialization.jsonObject(with: reply.body) as? [String: Any])
        return try #require(document["live"] as? [String])
    }

    static func fault(_ issuer: String, _ fault: [String: String]?) async throws {
        let body = try fault.map { try JSONSerialization.data(withJSONObject: $0) } ?? Data()
        let reply = try await SocialSignInTests.http.send(
            OutboundHTTPRequest(
                method: fault == nil ? .delete : .put, url: "\(issuer)/_faults",
                headers: [OutboundHTTPHeader(name: "Content-Type", value: "application/json")], body: body,
                allowsPlainHTTP: true))
        #expect(reply.status == 204)
    }

    /// The background revocation has happened (within 20 s).
    static func eventually(_ condition: () async throws -> Bool) async throws {
        for _ in 0..<200 {
            if try await condition() { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        Issue.record("not within 20 s")
    }
}
