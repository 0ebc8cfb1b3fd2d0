import CaptureCore
import CaptureStore
import CaptureTestSupport
import Foundation
import GRDB
import Testing

/// `Housekeeping.purgeExpired`: one pass removes what has expired, row kind by row kind, and keeps what still works.
@Suite struct PurgeTests {
    func count(_ table: String, in world: TestWorld) async throws -> Int {
        try await world.pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table)") ?? 0 }
    }

    func forgotPassword(_ email: String, in world: TestWorld) async throws {
        try await world.service.recovery.requestPasswordReset(
            FlowRequest(
                parameters: TestWorld.flowParameters(form: "forgotPasswordForm").merging(["signInEmailAddress": email]) { $1 }))
    }

    func startSocialLogin(in world: TestWorld, at date: Date) async throws {
        try await world.service.store.socialLogins.insert(
            SocialLogin(
                stateHash: UUID().uuidString, provider: "example", clientID: "demo-mobile-app", flow: "webViewSignIn",
                locale: "en-US", responseType: .token, returnURL: "/flows/webViewSignIn", nonce: "n", codeVerifier: "v",
                createdAt: date))
    }

    @Test func aPassRemovesWhatExpiredAndKeepsWhatStillWorks() async throws {
        let world = try await TestWorld.make(backend: .sqlite)
        // Old: a session and codes (the registration's verification code, a reset code).
        try await world.register("old@example.com")
        try await forgotPassword("old@example.com", in: world)
        let oldCodes = try await count("codes", in: world)
        #expect(oldCodes >= 1)
        // An audit row older than the retention (90 days): the operator's action back then.
        _ = try await world.service.admin.createAdminKey(name: "long ago", by: .service)
        world.time.advance(by: world.service.settings.auditRetentionDays * 86400 - world.service.settings.refreshTokenLifetime)
        // Past every lifetime: the refresh token's (30 days), the code's and its grace.
        world.time.advance(by: world.service.settings.refreshTokenLifetime + 3600)
        let now = world.time.now()

        // New, still live: another session, code (and its request's throttle counter), social sign-in.
        let live = try await world.register("new@example.com").grant!
        try await forgotPassword("new@example.com", in: world)
        try await startSocialLogin(in: world, at: now)
        // Old ones the repositories' own opportunistic clean-up (a few rows per write) has not reached yet.
        try await startSocialLogin(in: world, at: now - 86400)
        try await world.pool.write { db in
            try db.execute(
                sql: "INSERT INTO throttle (key, level, updatedAt, expiresAt) VALUES ('old', 1, ?, ?)",
                arguments: [now - 7200, now - 3600])
        }
        let liveThrottle = try await count("throttle", in: world) - 1
        #expect(liveThrottle > 0)
        // A passkey challenge nobody answered, and one still open.
        _ = try await world.service.factors.passkeyRequestOptions(
            FlowRequest(parameters: ["client_id": "demo-mobile-app"]), email: nil)
        try await world.service.store.ceremonies.insert(
            PendingCeremony(
                hash: "old", kind: .passkeyGet, userID: nil, clientID: "demo-mobile-app", payload: "",
                createdAt: now - 600, expiresAt: now - 300))
        _ = try await world.service.admin.createAdminKey(name: "today", by: .service)

        let report = try await world.service.housekeeping.purgeExpired()
        #expect(report["tokens"] == 2)
        #expect(report["codes"] == oldCodes)
        #expect(report["social_logins"] == 1)
        #expect(report["throttle"] == 1)
        #expect(report["ceremonies"] == 1)
        #expect(report["audit_log"] == 1)
        #expect(
            report.items.map(\.name) == [
                "tokens", "codes", "social_logins", "throttle", "ceremonies", "oidc_grants", "mail_bodies", "audit_log",
                "accounts_erased",
                "provider_tokens_revoked",
            ])
        #expect(try await count("ceremonies", in: world) == 1)
        #expect(try await world.service.audit.auditLog(AuditFilter()).map(\.target).count == 1, "today's row stays")
        #expect(try await count("tokens", in: world) == 2)
        #expect(try await count("codes", in: world) == oldCodes, "the new user's, as many")
        #expect(try await count("social_logins", in: world) == 1)
        #expect(try await count("throttle", in: world) == liveThrottle)
        // The live session still works; a second pass finds nothing.
        _ = try await world.service.profile.entity(accessToken: live.accessToken)
        #expect(try await world.service.housekeeping.purgeExpired().total == 0)
    }

    @Test func anExpiredAccessTokenStaysWhileTheSignedRefreshMayStillTakeIt() async throws {
        let world = try await TestWorld.make()
        try await world.register("signed@example.com")
        world.time.advance(by: world.service.settings.accessTokenLifetime + 60)
        #expect(try await world.service.housekeeping.purgeExpired()["tokens"] == 0)
        world.time.advance(by: world.service.settings.refreshTokenLifetime)
        #expect(try await world.service.housekeeping.purgeExpired()["tokens"] == 2)
    }

    @Test func anExpiredCodeStaysForADaySoALateEntryHearsExpired() async throws {
        let world = try await TestWorld.make()
        try await world.register("late@example.com")
        try await forgotPassword("late@example.com", in: world)
        world.time.advance(by: world.service.settings.resetCodeMinutes * 60 + 60)
        #expect(try await world.service.housekeeping.purgeExpired()["codes"] == 0)
        world.time.advance(by: Housekeeping.expiredCodeGrace)
        #expect(try await world.service.housekeeping.purgeExpired()["codes"] == 1)
    }
}
