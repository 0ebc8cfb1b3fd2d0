import CaptureCore
import CaptureTestSupport
import Foundation
import HTTPTypes
import Testing

/// Issue 31: the person's own sessions through the API as a host calls it: listed with client, device hint, sign-in
/// and last refresh; one signed out; every other one signed out. A session of another account cannot be named.
@Suite struct SessionListTests {
    static let password = "correct horse battery"
    static let iPhone =
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1"
    static let androidWebView =
        "Mozilla/5.0 (Linux; Android 14; Pixel 8; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/124.0.0.0 Mobile Safari/537.36"

    static func signIn(_ api: API, _ email: String, userAgent: String?) async throws -> (String, String) {
        var headers = HTTPFields()
        if let userAgent { headers[.userAgent] = userAgent }
        let reply = try await api.post(
            "/oauth/auth_native_traditional", TestWorld.signIn(email: email, password: password), headers: headers)
        let access = try #require(reply.json["access_token"] as? String, "\(reply.json)")
        return (access, try #require(reply.json["refresh_token"] as? String))
    }

    static func sessions(_ api: API, _ token: String) async throws -> [[String: Any]] {
        let reply = try await api.post("/sessions", ["access_token": token])
        return try #require(reply.json["sessions"] as? [[String: Any]], "\(reply.json)")
    }

    @Test func theListShowsEachSignInOnceWithItsDeviceAndTheCurrentOneFirst() async throws {
        try await withAPI { api, world in
            try await world.register("many@example.com", password: Self.password)
            let (phone, phoneRefresh) = try await Self.signIn(api, "many@example.com", userAgent: Self.iPhone)
            world.time.advance(by: 60)
            let (app, _) = try await Self.signIn(api, "many@example.com", userAgent: Self.androidWebView)
            world.time.advance(by: 60)
            let (bare, _) = try await Self.signIn(api, "many@example.com", userAgent: nil)
            // A refresh continues the phone's session: still one entry, its device kept, last used moved.
            world.time.advance(by: 60)
            let refreshed = try await api.post(
                "/oauth/token",
                ["grant_type": "refresh_token", "refresh_token": phoneRefresh, "client_id": "demo-mobile-app"])
            #expect(refreshed.json["access_token"] is String, "\(refreshed.json)")

            let listed = try await Self.sessions(api, app)
            // The registration's own session, the three sign-ins.
            #expect(listed.count == 4)
            #expect(listed.first?["current"] as? Bool == true && listed.first?["device"] as? String == "Android")
            #expect(listed.dropFirst().allSatisfy { $0["current"] as? Bool == false })
            let phoneRow = try #require(listed.first { $0["device"] as? String == "iPhone · Safari" })
            #expect(phoneRow["client_id"] as? String == "demo-mobile-app" && phoneRow["client_name"] is String)
            #expect(phoneRow["last_used"] as? String == CaptureDate.format(world.service.time.now()))
            #expect(phoneRow["created"] as? String == CaptureDate.format(world.service.time.now() - 180))
            // The other listed sessions, most recently used first, then the registration's.
            #expect(listed[1]["id"] as? String == phoneRow["id"] as? String)
            #expect(listed.filter { $0["device"] is NSNull }.count == 2)
            #expect(listed.allSatisfy { ($0["id"] as? String)?.count == 16 })
            #expect(try await Self.sessions(api, bare).first?["device"] is NSNull)
            _ = phone
        }
    }

    @Test func oneSessionOrEveryOtherIsSignedOutAndOnlyTheOwnerCanNameIt() async throws {
        try await withAPI { api, world in
            try await world.register("owner@example.com", password: Self.password)
            try await world.register("other@example.com", password: Self.password)
            let (first, firstRefresh) = try await Self.signIn(api, "owner@example.com", userAgent: Self.iPhone)
            let (second, _) = try await Self.signIn(api, "owner@example.com", userAgent: Self.androidWebView)
            let (third, _) = try await Self.signIn(api, "owner@example.com", userAgent: nil)
            let (stranger, _) = try await Self.signIn(api, "other@example.com", userAgent: nil)
            let phone = try #require(
                try await Self.sessions(api, second).first { $0["device"] as? String == "iPhone · Safari" }?["id"] as? String)

            // Another account's token cannot end it, a made-up id is not found, a missing one is named.
            let foreign = try await api.post("/sessions/end", ["access_token": stranger, "session": phone])
            #expect(foreign.code == 310 && foreign.json["error"] as? String == "record_not_found", "\(foreign.json)")
            #expect(try await api.post("/sessions/end", ["access_token": second, "session": "0123456789abcdef"]).code == 310)
            #expect(try await api.post("/sessions/end", ["access_token": second]).code == 100)
            #expect(try await api.post("/entity", ["access_token": first]).stat == "ok")

            let ended = try await api.post("/sessions/end", ["access_token": second, "session": phone])
            #expect(ended.stat == "ok" && ended.json["revoked"] as? Int == 2, "\(ended.json)")
            #expect(try await api.post("/entity", ["access_token": first]).stat == "error")
            let refresh = try await api.post(
                "/oauth/token", ["grant_type": "refresh_token", "refresh_token": firstRefresh, "client_id": "demo-mobile-app"])
            #expect(refresh.status == .badRequest)
            // The caller's own session stays; the phone's is gone.
            let remaining = try await Self.sessions(api, second)
            #expect(!remaining.isEmpty && remaining.allSatisfy { $0["id"] as? String != phone }, "\(remaining)")

            let others = try await api.post("/sessions/end_others", ["access_token": second])
            #expect(others.stat == "ok" && (others.json["revoked"] as? Int ?? 0) >= 2, "\(others.json)")
            #expect(try await api.post("/entity", ["access_token": third]).stat == "error")
            #expect(try await api.post("/entity", ["access_token": second]).stat == "ok")
            #expect(try await api.post("/entity", ["access_token": stranger]).stat == "ok")
            #expect(try await Self.sessions(api, second).count == 1)
            let user = try await world.service.admin.findUser("owner@example.com")
            let actions = try await world.service.audit.auditLog(AuditFilter(target: user.id)).map(\.action)
            #expect(actions.prefix(2) == ["session.end_others", "session.end"])
        }
    }
}
