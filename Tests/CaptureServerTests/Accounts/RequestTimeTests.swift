import CaptureCore
import CaptureServer
import CaptureTestSupport
import Foundation
import Testing

/// Issue 31, item 3: Janrain's `accountDataRequestTime` and `accountDeleteRequestTime`, kept in the record when the
/// schema has them: the person's own request for their data (download or mail) and for deletion stamp them; taking
/// the deletion back (reactivating) clears its time. Without the attributes in the schema, nothing is written.
@Suite struct RequestTimeTests {
    /// A world whose schema has both attributes, read-only, as Janrain customers' schemas do (the default schema has
    /// Hosted Login's `accountDataRequestTime` already).
    static func withRequestTimes(_ body: @escaping @Sendable (API, TestWorld) async throws -> Void) async throws {
        let settings = try TestWorld.settingsCopy(
            replacingInSchema: #""birthday": { "type": "date" },"#,
            with: #"""
                "birthday": { "type": "date" },
                    "accountDeleteRequestTime": { "type": "dateTime", "readOnly": true },
                """#)
        defer { try? FileManager.default.removeItem(at: settings) }
        let world = try await TestWorld.make(settingsDirectory: settings) {
            $0.webFlowsDirectory = TestWorld.repositoryRoot.appendingPathComponent("WebFlows").path
        }
        try await body(API(router: try buildRouter(features: world.service)), world)
    }

    static func stored(_ world: TestWorld, _ email: String, _ attribute: String) async throws -> String? {
        try await world.service.store.users.find(email: email)?.profile[attribute]?.stringValue
    }

    @Test func thePersonsRequestsAreKeptWhenTheSchemaHasThem() async throws {
        try await Self.withRequestTimes { api, world in
            let email = "asks@example.com"
            let token = try #require(try await world.register(email).grant?.accessToken)
            #expect(try await Self.stored(world, email, RequestTimes.data) == nil)

            world.time.advance(by: 60)
            let export = try #require(
                try await api.post("/account/export", ["access_token": token]).json["export"] as? [String: Any])
            let record = try #require(export["record"] as? [String: Any])
            let asked = CaptureDate.format(world.time.now())
            #expect(record[RequestTimes.data] as? String == asked, "the document shows the request it answers")
            #expect(try await Self.stored(world, email, RequestTimes.data) == asked)
            world.time.advance(by: 60)
            #expect(try await api.post("/account/export_mail", ["access_token": token]).stat == "ok")
            #expect(try await Self.stored(world, email, RequestTimes.data) == CaptureDate.format(world.time.now()))

            // The person's token cannot write it.
            let forged = try await api.post(
                "/entity.update", EntityAPITests.ios(token, #"{"accountDataRequestTime":"2001-01-01 00:00:00 +0000"}"#))
            #expect(forged.stat == "error")

            // Deleting stamps its time; reactivating takes it back.
            world.time.advance(by: 60)
            let deleted = try await api.post(
                "/oauth/deactivate_account", AccountDeletionTests.deletion(token, password: AccountDeletionTests.password))
            #expect(deleted.stat == "ok", "\(deleted.json)")
            #expect(try await Self.stored(world, email, RequestTimes.deletion) == CaptureDate.format(world.time.now()))
            let back = try await api.post("/oauth/auth_native_traditional", AccountDeletionTests.reactivation(email))
            #expect(back.stat == "ok", "\(back.json)")
            #expect(try await Self.stored(world, email, RequestTimes.deletion) == nil)
        }
    }

    @Test func aSchemaWithoutThemGetsNothingWritten() async throws {
        let settings = try TestWorld.settingsCopy(
            replacingInSchema: #""accountDataRequestTime": { "type": "dateTime", "readOnly": true },"#, with: "")
        defer { try? FileManager.default.removeItem(at: settings) }
        let world = try await TestWorld.make(settingsDirectory: settings) {
            $0.webFlowsDirectory = TestWorld.repositoryRoot.appendingPathComponent("WebFlows").path
        }
        let api = API(router: try buildRouter(features: world.service))
        let token = try #require(try await world.register("plain@example.com").grant?.accessToken)
        let export = try #require(
            try await api.post("/account/export", ["access_token": token]).json["export"] as? [String: Any])
        #expect((export["record"] as? [String: Any])?[RequestTimes.data] == nil)
        let user = try #require(try await world.service.store.users.find(email: "plain@example.com"))
        #expect(user.profile[RequestTimes.data] == nil && user.profile[RequestTimes.deletion] == nil)
    }
}
