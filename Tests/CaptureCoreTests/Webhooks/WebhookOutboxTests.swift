import CaptureCore
import CaptureJSON
import CaptureTestSupport
import Foundation
import Logging
import Testing

/// The webhooks' outbox on a real store (SQLite, or PostgreSQL with CAPTURE_TEST_BACKEND=postgres): events written
/// with the change that raises them, claimed in order per user, and the delivery's outcomes.
@Suite struct WebhookOutboxTests {
    static func world(schedule: [Double] = [0, 0]) async throws -> TestWorld {
        try await TestWorld.make { settings in
            settings.webhooks.retrySchedule = schedule
            settings.webhooks.allowPlainHTTP = true
        }
    }

    static func subscribe(
        _ world: TestWorld, _ events: [WebhookEventType] = [.entityCreated, .entityUpdated, .entityDeleted]
    ) async throws -> (WebhookSubscription, String) {
        try await world.service.webhooks.add(WebhookDraft(title: "Listener", endpoint: "http://127.0.0.1:9/in", events: events))
    }

    static func delivery(_ world: TestWorld, _ transport: ScriptedWebhookTransport) -> WebhookDelivery {
        WebhookDelivery(features: world.service, transport: transport, logger: Logger(label: "test.webhooks"))
    }

    static func events(_ world: TestWorld, _ subscription: WebhookSubscription) async throws -> [WebhookEvent] {
        try await world.service.webhooks.events(WebhookEventQuery(subscriptionID: subscription.id)).reversed()
    }

    @Test func aRegistrationAnEditAndADeletionEachWriteTheirEventWithTheChange() async throws {
        let world = try await Self.world()
        let (subscription, _) = try await Self.subscribe(world)
        try await world.register("hooked@example.com")
        let user = try #require(try await world.service.store.users.find(email: "hooked@example.com"))
        var edited = user
        edited.profile["givenName"] = .string("Hooked")
        try await world.service.store.users.update(edited)
        // A sign-in's stamp alone is not an edit.
        var stamped = edited
        stamped.lastLoginAt = world.time.now()
        try await world.service.store.users.update(stamped)
        // A second registration of the same address fails, and so leaves no event.
        _ = try? await world.register("hooked@example.com")
        _ = try await world.service.admin.deleteUser(user.id)
        let events = try await Self.events(world, subscription)
        #expect(events.map(\.type) == [.entityCreated, .entityUpdated, .entityDeleted])
        #expect(events.allSatisfy { $0.userID == user.id && $0.status == .pending })
        let updated = try JSONParser.parse(events[1].payload)
        #expect(updated.members?["data"]?.members?["attributes"] == ["givenName"])
    }

    @Test func anImportBatchRaisesEntityCreatedForTheRecordsItStoresOnly() async throws {
        let world = try await Self.world()
        let (subscription, _) = try await Self.subscribe(world, [.entityCreated])
        let now = world.time.now()
        let first = User(id: "00000000-0000-4000-8000-0000000000a1", email: "imp1@example.com", passwordHash: nil, createdAt: now)
        let second = User(
            id: "00000000-0000-4000-8000-0000000000a2", email: "imp2@example.com", passwordHash: nil, createdAt: now)
        let clash = User(id: "00000000-0000-4000-8000-0000000000a3", email: "imp1@example.com", passwordHash: nil, createdAt: now)
        let outcomes = try await world.service.store.users.importBatch([first, second, clash])
        #expect(outcomes.map { (try? $0.get()) != nil } == [true, true, false])
        let events = try await Self.events(world, subscription)
        #expect(events.map(\.userID) == [first.id, second.id])
    }

    @Test func settingsReadTheWebhooksAndRefuseValuesOutOfRange() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hooks-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("service.json")
        try Data(#"{"webhooks": {"retrySchedule": [1, 2], "allowPlainHTTP": true, "retentionDays": 3}}"#.utf8).write(to: file)
        let settings = try ServiceSettings.load(file: file)
        #expect(settings.webhooks.retrySchedule == [1, 2] && settings.webhooks.allowPlainHTTP)
        #expect(settings.webhooks.retentionDays == 3 && settings.webhooks.totalTimeoutSeconds == 15)
        try Data(#"{"webhooks": {"retentionDays": 0}}"#.utf8).write(to: file)
        #expect(throws: SettingsError.self) { try ServiceSettings.load(file: file) }
        #expect(ServiceSettings().webhooks.retrySchedule == WebhookSettings.standardSchedule)
    }

    @Test func eachUsersEventsAreClaimedInOrderOneAtATime() async throws {
        let world = try await Self.world()
        let (subscription, _) = try await Self.subscribe(world)
        try await world.register("first@example.com")
        try await world.register("second@example.com")
        let first = try #require(try await world.service.store.users.find(email: "first@example.com"))
        var edited = first
        edited.profile["givenName"] = .string("Again")
        try await world.service.store.users.update(edited)
        let now = world.time.now()
        let claimed = try await world.service.store.webhooks.claimDue(at: now, lease: now + 60, limit: 10)
        // The first user's edit waits behind its registration; the second user's registration goes beside it.
        #expect(claimed.map(\.type) == [.entityCreated, .entityCreated])
        #expect(try await world.service.store.webhooks.claimDue(at: now, lease: now + 60, limit: 10).isEmpty)
        var done = claimed[0]
        done.status = .delivered
        try await world.service.store.webhooks.finish(
            done, attempt: WebhookAttempt(eventSequence: done.sequence ?? 0, at: now, status: 200, milliseconds: 1, error: nil))
        let next = try await world.service.store.webhooks.claimDue(at: now, lease: now + 60, limit: 10)
        #expect(next.map(\.type) == [.entityUpdated])
        #expect(next.first?.userID == first.id)
        _ = subscription
    }

    @Test func aDeliveryIsSignedRetriedOnTheScheduleThenFailedAndRedelivered() async throws {
        let world = try await Self.world(schedule: [0, 0])
        let (subscription, secret) = try await Self.subscribe(world)
        try await world.register("retried@example.com")
        let transport = ScriptedWebhookTransport([WebhookResponse(status: 500)])
        let delivery = Self.delivery(world, transport)
        for _ in 0..<3 { try await delivery.deliverDue() }
        #expect(try await delivery.deliverDue() == 0, "failed after 1 + 2 attempts")
        let event = try #require(try await Self.events(world, subscription).first)
        #expect(event.status == .failed && event.attempts == 3 && event.lastError == "HTTP 500")
        let history = try await world.service.webhooks.event(event.id)
        #expect(history.first?.1.map(\.status) == [500, 500, 500])
        // Every attempt carries the same id and a signature of it with the subscription's secret.
        let request = try #require(transport.requests.first)
        #expect(transport.requests.map { $0.header("webhook-id") } == Array(repeating: Optional(event.id), count: 3))
        let timestamp = try #require(request.header("webhook-timestamp").flatMap { Int64($0) })
        #expect(
            request.header("webhook-signature")
                == WebhookSignature.header(id: event.id, timestamp: timestamp, body: event.payload, secrets: [secret]))
        #expect(request.body == event.payload)
        // Redelivered by id: due again, delivered.
        #expect(try await world.service.webhooks.redeliver(id: event.id, query: WebhookEventQuery()) == 1)
        let working = Self.delivery(world, ScriptedWebhookTransport([WebhookResponse(status: 204)]))
        try await working.deliverDue()
        let again = try #require(try await Self.events(world, subscription).first)
        #expect(again.status == .delivered && again.attempts == 1)
    }

    @Test func a410DisablesTheSubscriptionAndA429WaitsForRetryAfter() async throws {
        let world = try await Self.world(schedule: [0, 0, 0])
        let (gone, _) = try await Self.subscribe(world, [.entityCreated])
        try await world.register("gone@example.com")
        try await Self.delivery(world, ScriptedWebhookTransport([WebhookResponse(status: 410)])).deliverDue()
        let disabled = try await world.service.webhooks.find(gone.id)
        #expect(!disabled.enabled && disabled.disabledReason != nil)
        #expect(try await Self.events(world, gone).map(\.status) == [.failed])
        try await world.register("after@example.com")
        #expect(try await Self.events(world, gone).count == 1, "a disabled subscription hears nothing")

        let (busy, _) = try await world.service.webhooks.add(
            WebhookDraft(title: "Busy", endpoint: "http://127.0.0.1:9/busy", events: [.entityCreated]))
        try await world.register("busy@example.com")
        let delivery = Self.delivery(world, ScriptedWebhookTransport([WebhookResponse(status: 429, retryAfter: "120")]))
        try await delivery.deliverDue()
        let waiting = try #require(try await Self.events(world, busy).first)
        #expect(waiting.status == .pending && waiting.attempts == 1)
        #expect(waiting.nextAttemptAt.timeIntervalSince(world.time.now()) >= 119)
        #expect(try await delivery.deliverDue() == 0, "not due before Retry-After")
    }

    @Test func rotationKeepsTheOldSecretSigningBesideTheNewOne() async throws {
        let world = try await Self.world()
        let (subscription, old) = try await Self.subscribe(world, [.entityCreated])
        let (_, new) = try await world.service.webhooks.rotateSecret(subscription.id, keepOldHours: 1)
        #expect(old != new)
        try await world.register("rotated@example.com")
        let transport = ScriptedWebhookTransport([WebhookResponse(status: 200)])
        try await Self.delivery(world, transport).deliverDue()
        let request = try #require(transport.requests.first)
        let id = try #require(request.header("webhook-id"))
        let timestamp = try #require(request.header("webhook-timestamp").flatMap { Int64($0) })
        let header = try #require(request.header("webhook-signature"))
        #expect(header.split(separator: " ").count == 2)
        for secret in [old, new] {
            let one = WebhookSignature.header(id: id, timestamp: timestamp, body: request.body, secrets: [secret])
            #expect(header.split(separator: " ").contains(Substring(one)))
        }
    }

    @Test func deliveredAndFailedEventsArePurgedPastTheRetentionAndPendingOnesStay() async throws {
        let world = try await Self.world(schedule: [])
        let (subscription, _) = try await Self.subscribe(world, [.entityCreated])
        try await world.register("old@example.com")
        try await world.register("kept@example.com")
        let delivery = Self.delivery(world, ScriptedWebhookTransport([WebhookResponse(status: 500)]))
        try await delivery.deliverDue()
        #expect(try await Self.events(world, subscription).map(\.status) == [.failed, .failed])
        try await world.register("waiting@example.com")
        world.time.advance(by: 7 * 86400 + 1)
        #expect(try await world.service.webhooks.purge() == 2)
        #expect(try await Self.events(world, subscription).map(\.status) == [.pending])
    }

    @Test func secretsAreStoredSealedAndShownOnlyOnce() async throws {
        let world = try await Self.world()
        let (subscription, secret) = try await Self.subscribe(world)
        #expect(!subscription.sealedSecret.contains(String(secret.dropFirst(6))))
        let view = WebhookSubscriptionView(try await world.service.webhooks.find(subscription.id), now: world.time.now())
        let document = String(decoding: try AdminViews.encoder().encode(view), as: UTF8.self)
        #expect(!document.contains(secret) && !document.contains("sealed"))
    }
}
