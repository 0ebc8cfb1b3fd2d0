import CaptureCore
import CaptureJSON
import CaptureTestSupport
import Foundation
import Testing

/// The security events: raised from the record's own change or from the audit row the use case writes, in the same
/// transaction, on either backend; a sign-in's rehash is not a password change; an erasure forgets what was sent.
@Suite struct WebhookSecurityEventTests {
    static let security: [WebhookEventType] = WebhookEventType.allCases.filter {
        ![.entityCreated, .entityUpdated, .entityDeleted, .ping].contains($0)
    }

    static func world() async throws -> (TestWorld, WebhookSubscription, User) {
        let world = try await TestWorld.make()
        let (subscription, _) = try await world.service.webhooks.add(
            WebhookDraft(title: "Security", endpoint: "https://siem.example/in", events: security))
        try await world.register("watched@example.com")
        let user = try #require(try await world.service.store.users.find(email: "watched@example.com"))
        return (world, subscription, user)
    }

    static func types(_ world: TestWorld, _ subscription: WebhookSubscription) async throws -> [WebhookEventType] {
        try await world.service.webhooks.events(WebhookEventQuery(subscriptionID: subscription.id)).reversed().map(\.type)
            .filter { $0 != .termsAccepted && $0 != .consentChanged }
    }

    @Test func auditedFactorChangesAndAnOperatorsSignOutAreTold() async throws {
        let (world, subscription, user) = try await Self.world()
        await world.service.audit.recordSecurityEvent("passkey.added", target: user.id, detail: "Laptop")
        await world.service.audit.recordSecurityEvent("second_factor.enabled", target: user.id)
        await world.service.audit.recordSecurityEvent("second_factor.disabled", target: user.id)
        await world.service.audit.recordSecurityEvent("passkey.removed", target: user.id, detail: "cred")
        _ = try await AdminOperations.signOutUser.perform(user.id, on: world.service, as: .service)
        // A burst of refused sign-ins is audited by address; the event names the user.
        await world.service.audit.recordSecurityEvent(
            "signin.burst", target: "watched@example.com", outcome: CaptureError.rateLimited.error)
        // An address nobody holds raises nothing.
        await world.service.audit.recordSecurityEvent(
            "signin.burst", target: "nobody@example.com", outcome: CaptureError.rateLimited.error)
        #expect(
            try await Self.types(world, subscription) == [
                .passkeyAdded, .secondFactorAdded, .secondFactorRemoved, .passkeyRemoved, .tokensRevoked, .signInThrottled,
            ])
        let events = try await world.service.webhooks.events(WebhookEventQuery(subscriptionID: subscription.id))
        #expect(events.allSatisfy { $0.userID == user.id })
        #expect(events.allSatisfy { !$0.payload.contains("Laptop") && !$0.payload.contains("watched@") })
    }

    @Test func aWrongPasswordForAnAccountIsToldAndOneForAnUnknownAddressIsNot() async throws {
        let (world, subscription, user) = try await Self.world()
        _ = try? await world.service.signIn.signIn(
            FlowRequest(parameters: TestWorld.signIn(email: "watched@example.com", password: "wrong guess")))
        _ = try? await world.service.signIn.signIn(
            FlowRequest(parameters: TestWorld.signIn(email: "unknown@example.com", password: "wrong guess")))
        // Written beside the reply: wait for it.
        var types: [WebhookEventType] = []
        for _ in 0..<100 {
            types = try await Self.types(world, subscription)
            if !types.isEmpty { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        try await Task.sleep(for: .milliseconds(200))
        #expect(try await Self.types(world, subscription) == [.signInFailed])
        let events = try await world.service.webhooks.events(WebhookEventQuery(subscriptionID: subscription.id))
        #expect(events.filter { $0.type == .signInFailed }.map(\.userID) == [user.id])
    }

    @Test func deactivationReactivationAndAPasswordChangeAreToldFromTheRecord() async throws {
        let (world, subscription, user) = try await Self.world()
        _ = try await world.service.admin.setDisabled(user.id, disabled: true)
        _ = try await world.service.admin.setDisabled(user.id, disabled: false)
        var changed = try #require(try await world.service.store.users.find(id: user.id))
        changed.passwordHash = "$2b$04$" + String(repeating: "a", count: 53)
        try await world.service.store.users.update(changed)
        #expect(try await Self.types(world, subscription) == [.accountDeactivated, .accountReactivated, .passwordChanged])
    }

    @Test func aSignInsRehashOfTheSamePasswordIsNoChange() async throws {
        let (world, subscription, user) = try await Self.world()
        var imported = try #require(try await world.service.store.users.find(id: user.id))
        imported.passwordHash = "$legacy$md5$5f4dcc3b5aa765d61d8327deb882cf99"
        // The import's own write is before the subscription in real life; here it is a change of hash format too.
        try await world.service.store.users.update(imported)
        var rehashed = imported
        rehashed.passwordHash = "$2b$04$" + String(repeating: "b", count: 53)
        rehashed.lastLoginAt = world.time.now()
        try await world.service.store.users.update(rehashed)
        var cheaper = rehashed
        cheaper.passwordHash = "$2b$10$" + String(repeating: "c", count: 53)
        try await world.service.store.users.update(cheaper)
        #expect(try await Self.types(world, subscription).filter { $0 == .passwordChanged } == [.passwordChanged])
    }

    @Test func anErasureForgetsWhatWasSentAndStillSendsItsOwnEvents() async throws {
        let world = try await TestWorld.make()
        let (subscription, _) = try await world.service.webhooks.add(
            WebhookDraft(title: "All", endpoint: "https://crm.example/in", events: [.entityCreated, .entityDeleted]))
        try await world.register("erased@example.com")
        let user = try #require(try await world.service.store.users.find(email: "erased@example.com"))
        let now = world.time.now()
        var created = try #require(try await world.service.store.webhooks.claimDue(at: now, lease: now + 60, limit: 1).first)
        created.status = .delivered
        try await world.service.store.webhooks.finish(
            created,
            attempt: WebhookAttempt(eventSequence: created.sequence ?? 0, at: now, status: 200, milliseconds: 3, error: nil))
        _ = try await world.service.admin.deleteUser(user.id)
        let left = try await world.service.webhooks.events(WebhookEventQuery(subscriptionID: subscription.id))
        #expect(left.map(\.type) == [.entityDeleted])
        #expect(left.first?.status == .pending)
    }
}
