import CaptureCore
import CaptureTestSupport
import Foundation
import Testing

/// Other sites' pages cannot drive sign-in or registration from their visitors' browsers (guessing with other
/// people's addresses, login CSRF); native SDKs send no Origin and are unaffected.
@Suite struct CrossOriginTests {
    @Test func aForeignOriginCannotUseAClientsFlows() async throws {
        try await withAPI(configure: { $0.signInMaxFailures = 1 }) { api, world in
            try await world.register("owner@example.com", password: "right password")
            let guess = TestWorld.signIn(email: "owner@example.com", password: "wrong password")
            for origin in ["https://evil.example", "null", "http://127.0.0.1:8080.evil.example"] {
                let reply = try await api.post("/oauth/auth_native_traditional", guess, headers: [.origin: origin])
                #expect(reply.status == .ok && reply.code == 403, "\(origin)")
                let registration = try await api.post(
                    "/oauth/register_native_traditional", TestWorld.registration(email: "new@example.com"),
                    headers: [.origin: origin])
                #expect(registration.code == 403)
            }
            // Refused before the password check: nothing was charged to the throttle (its limit here is one failure).
            let native = try await api.post(
                "/oauth/auth_native_traditional", TestWorld.signIn(email: "owner@example.com", password: "right password"))
            #expect(native.stat == "ok")
        }
    }

    @Test func theServicesOwnPagesAndAllowedOriginsMay() async throws {
        try await withAPI { api, world in
            try await world.register("owner@example.com", password: "right password")
            let signIn = TestWorld.signIn(email: "owner@example.com", password: "right password")
            let ownPage = try await api.post(
                "/oauth/auth_native_traditional", signIn, headers: [.origin: "http://127.0.0.1:8080"])
            #expect(ownPage.stat == "ok")
            let sameHost = try await api.post(
                "/oauth/auth_native_traditional", signIn, headers: [.origin: "http://localhost"])
            #expect(sameHost.stat == "ok", "an Origin matching the request's own Host (here localhost) is same-origin")
        }
        #expect(
            ClientRules.acceptsOrigin("https://app.example.com", allowed: ["https://app.example.com"], publicOrigin: "http://x"))
        #expect(
            !ClientRules.acceptsOrigin(
                "https://app.example.com:444", allowed: ["https://app.example.com"], publicOrigin: "http://x"))
    }
}
