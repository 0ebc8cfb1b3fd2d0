import CaptureCore
import CaptureJSON
import Crypto
import Foundation
import Testing

/// The webhooks' rules in Core: Standard Webhooks' signatures, the retry schedule, what a change raises and what its
/// payload may carry, and which listener URLs are accepted.
@Suite struct WebhookRuleTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func v1SignsIdTimestampAndBodyAsStandardWebhooksExampleSays() {
        // The example of the Standard Webhooks specification's reference libraries.
        let header = WebhookSignature.header(
            id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_330, body: "{\"test\": 2432232314}",
            secrets: ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"])
        #expect(header == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
    }

    @Test func aRotationSignsWithBothSecretsAndAnUnreadableOneWithNone() {
        let header = WebhookSignature.header(
            id: "msg_1", timestamp: 1, body: "{}", secrets: ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "whsec_AAAA", "nonsense!"])
        let parts = header.split(separator: " ")
        #expect(parts.count == 2)
        #expect(parts.allSatisfy { $0.hasPrefix("v1,") })
    }

    @Test func v1aIsAnEd25519SignatureThePublicKeyVerifies() throws {
        let secret = WebhookSignature.newSecret(.v1a, random: SystemRandom())
        #expect(secret.hasPrefix("whsk_"))
        let publicKey = try #require(WebhookSignature.verificationKey(of: secret))
        #expect(publicKey.hasPrefix("whpk_"))
        let header = WebhookSignature.header(id: "msg_2", timestamp: 1_800_000_000, body: "{\"a\":1}", secrets: [secret])
        #expect(header.hasPrefix("v1a,"))
        let key = try Curve25519.Signing.PublicKey(
            rawRepresentation: try #require(Data(base64Encoded: String(publicKey.dropFirst(5)))))
        let signature = try #require(Data(base64Encoded: String(header.dropFirst(4))))
        #expect(key.isValidSignature(signature, for: Data("msg_2.1800000000.{\"a\":1}".utf8)))
        #expect(!key.isValidSignature(signature, for: Data("msg_2.1800000001.{\"a\":1}".utf8)))
    }

    @Test func aV1SecretIsTwentyFourRandomBytesInBase64() throws {
        let secret = WebhookSignature.newSecret(.v1, random: SystemRandom())
        #expect(secret.hasPrefix("whsec_"))
        #expect(Data(base64Encoded: String(secret.dropFirst(6)))?.count == 24)
    }

    @Test func theScheduleIsStandardWebhooksAndEndsInFailure() {
        let schedule = WebhookSettings.standardSchedule
        #expect(schedule == [5, 300, 1800, 7200, 18000, 36000, 36000])
        let pauses = (1...8).map {
            WebhookSchedule.pause(afterAttempt: $0, schedule: schedule, status: 500, retryAfter: nil, now: Self.now)
        }
        #expect(pauses == [5, 300, 1800, 7200, 18000, 36000, 36000, nil])
    }

    @Test func retryAfterIsHonouredOnlyWith429Or503AndOnlyWhenLonger() {
        let schedule: [TimeInterval] = [5, 300]
        #expect(WebhookSchedule.pause(afterAttempt: 1, schedule: schedule, status: 429, retryAfter: "120", now: Self.now) == 120)
        #expect(WebhookSchedule.pause(afterAttempt: 1, schedule: schedule, status: 503, retryAfter: "1", now: Self.now) == 5)
        #expect(WebhookSchedule.pause(afterAttempt: 1, schedule: schedule, status: 500, retryAfter: "120", now: Self.now) == 5)
        #expect(
            WebhookSchedule.pause(afterAttempt: 1, schedule: schedule, status: 429, retryAfter: "9999999", now: Self.now)
                == WebhookSchedule.longestRetryAfter)
        let date = "Fri, 15 Jan 2027 08:00:00 GMT"
        let until = WebhookSchedule.retryAfterSeconds(date, now: Date(timeIntervalSince1970: 1_800_000_000))
        #expect(until != nil)
        #expect(WebhookSchedule.retryAfterSeconds("soon", now: Self.now) == nil)
    }

    static func subscription(
        _ events: [WebhookEventType], clients: [String] = [], attributes: [String] = [], includeValues: Bool = false
    ) -> WebhookSubscription {
        WebhookSubscription(
            id: "whs_1", title: "t", endpoint: "https://l.example/", events: events, clients: clients, attributes: attributes,
            includeValues: includeValues, sealedSecret: "sealed", createdAt: now)
    }

    static func user() -> User {
        var user = User(
            id: "7f1d0c1e-0000-4000-8000-000000000001", email: "a@example.com", passwordHash: "$2b$10$abcdefghijklmnopqrstuv",
            createdAt: now)
        user.number = 42
        user.profile = ["givenName": "Ann", "familyName": "Lee"]
        return user
    }

    @Test func anUpdateNamesTheChangedAttributesAndNeverCarriesAPasswordOrHash() throws {
        let before = Self.user()
        var after = before
        after.passwordHash = "$2b$10$zyxwvutsrqponmlkjihgfedcba"
        after.profile["givenName"] = "Anne"
        after.lastLoginAt = Self.now
        let events = WebhookEvents.raised(
            by: .updated(previous: before, current: after),
            for: [Self.subscription([.entityUpdated, .passwordChanged], includeValues: true)], client: "app", at: Self.now)
        #expect(events.map(\.type) == [.entityUpdated, .passwordChanged])
        let body = try JSONParser.parse(events[0].payload)
        let data = try #require(body.members?["data"]?.members)
        #expect(data["attributes"] == ["givenName", "password"])
        #expect(data["uuid"] == .string(before.id))
        #expect(data["id"] == .int(42))
        #expect(data["client_id"] == "app")
        #expect(data["values"] == ["givenName": "Anne"])
        for event in events {
            #expect(!event.payload.contains("$2b$"), "no hash in \(event.payload)")
            #expect(!event.payload.contains("zyxwv"))
            #expect(event.id.hasPrefix("msg_"))
        }
    }

    @Test func aSignInThatOnlyStampsLastLoginRaisesNothing() {
        let before = Self.user()
        var after = before
        after.lastLoginAt = Self.now
        after.updatedAt = Self.now + 1
        let events = WebhookEvents.raised(
            by: .updated(previous: before, current: after), for: [Self.subscription(WebhookEventType.allCases)],
            client: nil, at: Self.now)
        #expect(events.isEmpty)
    }

    @Test func filtersByClientAndChangedAttributeAndDisabledSubscriptionsHearNothing() {
        let before = Self.user()
        var after = before
        after.profile["familyName"] = "Li"
        let change = RecordChange.updated(previous: before, current: after)
        let byGivenName = Self.subscription([.entityUpdated], attributes: ["givenName"])
        let byFamilyName = Self.subscription([.entityUpdated], attributes: ["familyName"])
        let byClient = Self.subscription([.entityUpdated], clients: ["backend"])
        var disabled = Self.subscription([.entityUpdated])
        disabled.enabled = false
        #expect(WebhookEvents.raised(by: change, for: [byGivenName], client: nil, at: Self.now).isEmpty)
        #expect(WebhookEvents.raised(by: change, for: [byFamilyName], client: nil, at: Self.now).count == 1)
        #expect(WebhookEvents.raised(by: change, for: [byClient], client: "app", at: Self.now).isEmpty)
        #expect(WebhookEvents.raised(by: change, for: [byClient], client: nil, at: Self.now).isEmpty)
        #expect(WebhookEvents.raised(by: change, for: [byClient], client: "backend", at: Self.now).count == 1)
        #expect(WebhookEvents.raised(by: change, for: [disabled], client: nil, at: Self.now).isEmpty)
        // Values only when asked.
        let plain = WebhookEvents.raised(by: change, for: [byFamilyName], client: nil, at: Self.now)
        #expect(!plain[0].payload.contains("\"values\""))
    }

    @Test func deactivationAddressChangeAndErasureAreSecurityEventsOfTheRecord() {
        let before = Self.user()
        var after = before
        after.deleteRequestedAt = Self.now
        after.email = "b@example.com"
        let all = [Self.subscription(WebhookEventType.allCases)]
        let types = WebhookEvents.raised(by: .updated(previous: before, current: after), for: all, client: nil, at: Self.now)
            .map(\.type)
        #expect(types == [.entityUpdated, .emailChanged, .accountDeactivated])
        let erased = WebhookEvents.raised(by: .deleted(before, erased: true), for: all, client: nil, at: Self.now).map(\.type)
        #expect(erased == [.entityDeleted, .accountErased])
        let audited = WebhookEvents.raised(
            by: .audited(action: "passkey.added", userID: before.id, outcome: "success", detail: "Laptop"), for: all,
            client: nil, at: Self.now)
        #expect(audited.map(\.type) == [.passkeyAdded])
        #expect(!audited[0].payload.contains("Laptop"), "an audit row's detail stays in the audit log")
    }

    @Test func listenersMustBeHTTPSOrLoopbackHTTPWhenAllowed() {
        var settings = WebhookSettings()
        #expect(settings.problem(withEndpoint: "https://hooks.example/in") == nil)
        #expect(settings.problem(withEndpoint: "http://127.0.0.1:9/in") != nil)
        #expect(settings.problem(withEndpoint: "https://user:pw@hooks.example/") != nil)
        #expect(settings.problem(withEndpoint: "ftp://hooks.example/") != nil)
        #expect(settings.problem(withEndpoint: "hooks.example") != nil)
        settings.allowPlainHTTP = true
        #expect(settings.problem(withEndpoint: "http://127.0.0.1:9/in") == nil)
        #expect(settings.problem(withEndpoint: "http://[::1]:9/in") == nil)
        #expect(settings.problem(withEndpoint: "http://10.0.0.5/in") != nil)
    }
}
