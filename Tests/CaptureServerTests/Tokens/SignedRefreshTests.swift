import CaptureCore
import CaptureTestSupport
import Crypto
import Foundation
import Testing

/// `/oauth/refresh_access_token`, signed with the `refresh_secret` a Janrain SDK sent at sign-in (docs/contract.md §5).
@Suite struct SignedRefreshTests {
    static let secret = "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678"

    static func date(_ time: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return formatter.string(from: time)
    }

    static func signature(date: String, token: String, secret: String = secret) -> String {
        let mac = HMAC<Insecure.SHA1>.authenticationCode(
            for: Data("refresh_access_token\n\(date)\n\(token)\n".utf8), using: SymmetricKey(data: Data(secret.utf8)))
        return Data(mac).base64EncodedString()
    }

    static func signIn(_ api: API, _ world: TestWorld, secret: String? = secret) async throws -> String {
        var fields = TestWorld.registration(email: "signed-\(UUID().uuidString.prefix(8))@example.com")
        if let secret { fields["refresh_secret"] = secret }
        let reply = try await api.post("/oauth/register_native_traditional", fields)
        return try #require(reply["access_token"] as? String)
    }

    static func refresh(_ token: String, at date: String, signature: String? = nil) -> [String: String] {
        [
            "access_token": token, "date": date, "signature": signature ?? Self.signature(date: date, token: token),
            "client_id": "demo-mobile-app", "locale": "en-US",
        ]
    }

    @Test func anExpiredTokenIsReplacedOnceWithAValidSignature() async throws {
        try await withAPI { api, world in
            let token = try await Self.signIn(api, world)
            world.time.advance(by: 3700)  // the access token has expired: that is when SDKs refresh
            let date = Self.date(world.time.now())
            let reply = try await api.post("/oauth/refresh_access_token", Self.refresh(token, at: date))
            #expect(reply.stat == "ok")
            #expect(reply["expires_in"] as? Int == 3600)
            let fresh = try #require(reply["access_token"] as? String)
            #expect(fresh != token)
            #expect(reply.headers[.cacheControl] == "no-store")
            #expect(try await api.post("/entity", ["access_token": fresh]).stat == "ok")

            // The old token cannot be refreshed twice; trying revokes what the first refresh issued.
            let replay = try await api.post("/oauth/refresh_access_token", Self.refresh(token, at: date))
            #expect(replay.code == 200 && replay["error"] as? String == "invalid_access_token")
            #expect(try await api.post("/entity", ["access_token": fresh]).code == 200)
        }
    }

    @Test func badSignaturesDatesAndSessionsAreRefused() async throws {
        try await withAPI { api, world in
            let token = try await Self.signIn(api, world)
            let now = Self.date(world.time.now())
            let forged = try await api.post(
                "/oauth/refresh_access_token",
                Self.refresh(token, at: now, signature: Self.signature(date: now, token: token, secret: "guess")))
            #expect(forged["argument"] as? String == "signature")
            let stale = Self.date(world.time.now().addingTimeInterval(-600))
            #expect(
                try await api.post("/oauth/refresh_access_token", Self.refresh(token, at: stale))["argument"] as? String == "date"
            )
            let malformed = try await api.post("/oauth/refresh_access_token", Self.refresh(token, at: "yesterday"))
            #expect(malformed["argument"] as? String == "date")
            var missing = Self.refresh(token, at: now)
            missing.removeValue(forKey: "signature")
            #expect(try await api.post("/oauth/refresh_access_token", missing).code == 100)
            // None of the refusals used the token up.
            #expect(try await api.post("/oauth/refresh_access_token", Self.refresh(token, at: now)).stat == "ok")

            let noSecret = try await Self.signIn(api, world, secret: nil)
            let refused = try await api.post("/oauth/refresh_access_token", Self.refresh(noSecret, at: now))
            #expect(refused.code == 403)
        }
    }

    @Test func jumpIOSRefreshParametersIncludingFlowAreAccepted() async throws {
        try await withAPI { api, world in
            let token = try await Self.signIn(api, world)
            let date = Self.date(world.time.now())
            // JRCapture.refreshAccessTokenForDelegate sends exactly these.
            var fields = Self.refresh(token, at: date)
            fields["flow"] = "webViewSignIn"
            fields["flow_version"] = "20261122"
            let reply = try await api.post("/oauth/refresh_access_token", fields)
            #expect(reply.stat == "ok", "\(reply.json)")
            #expect(reply["access_token"] as? String != token)
        }
    }
}
