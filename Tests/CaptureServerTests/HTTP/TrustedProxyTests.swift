import CaptureCore
import CaptureServer
import CaptureTestSupport
import Foundation
import Hummingbird
import Testing

/// Forwarding headers over real sockets (the peer is 127.0.0.1): believed from trusted proxies only.
@Suite struct TrustedProxyTests {
    static let password = "the owner's passphrase"

    static func signIn(_ api: API, email: String, password: String, forwardedFor: String) async throws -> Int? {
        return try await api.post(
            "/oauth/auth_native_traditional", TestWorld.signIn(email: email, password: password),
            headers: [.init("X-Forwarded-For")!: forwardedFor]
        ).code
    }

    @Test func behindATrustedProxyEachClientHasItsOwnAddressLimit() async throws {
        try await withLiveAPI(configure: {
            $0.trustedProxies = ["127.0.0.1"]
            $0.signInMaxFailures = 2
            $0.signInMaxFailuresPerAddress = 4
        }) { api, world in
            try await world.register("owner@example.com", password: Self.password)
            for index in 0..<4 {
                let code = try await Self.signIn(
                    api, email: "u\(index)@example.com", password: "guess", forwardedFor: "203.0.113.9")
                #expect(code == 210)
            }
            #expect(
                try await Self.signIn(api, email: "owner@example.com", password: Self.password, forwardedFor: "203.0.113.9")
                    == 510)
            // Everyone else behind the same proxy is unaffected: the limit follows the client, not the proxy.
            #expect(
                try await Self.signIn(api, email: "owner@example.com", password: Self.password, forwardedFor: "198.51.100.4")
                    == nil)
        }
    }

    /// Issue 27: the proxy writes one header; a client's own copy of the other one is not believed, so rotating it
    /// per guess does not give each guess a fresh address.
    @Test(arguments: [TrustedProxies.Header.xForwardedFor, .forwarded])
    func onlyTheHeaderTheProxyWritesNamesTheClient(_ header: TrustedProxies.Header) async throws {
        try await withLiveAPI(configure: {
            $0.trustedProxies = ["127.0.0.1"]
            $0.proxyHeader = header
            $0.signInMaxFailures = 2
            $0.signInMaxFailuresPerAddress = 4
        }) { api, world in
            try await world.register("owner@example.com", password: Self.password)
            func signIn(_ email: String, _ password: String, client: String, invented: String) async throws -> Int? {
                let (proxy, other): (String, String) =
                    header == .forwarded
                    ? ("Forwarded", "X-Forwarded-For") : ("X-Forwarded-For", "Forwarded")
                let written = header == .forwarded ? "for=\(client)" : client
                let spoofed = header == .forwarded ? invented : "for=\(invented)"
                return try await api.post(
                    "/oauth/auth_native_traditional", TestWorld.signIn(email: email, password: password),
                    headers: [.init(proxy)!: written, .init(other)!: spoofed]
                ).code
            }
            for index in 0..<4 {
                #expect(
                    try await signIn("u\(index)@example.com", "guess", client: "203.0.113.9", invented: "10.9.9.\(index)") == 210)
            }
            #expect(try await signIn("owner@example.com", Self.password, client: "203.0.113.9", invented: "10.9.9.99") == 510)
            #expect(try await signIn("owner@example.com", Self.password, client: "198.51.100.4", invented: "10.9.9.99") == nil)
        }
    }

    @Test func fromAnUntrustedPeerForwardingHeadersCannotDodgeTheLimit() async throws {
        try await withLiveAPI(configure: {
            $0.trustedProxies = []
            $0.signInMaxFailures = 2
            $0.signInMaxFailuresPerAddress = 4
        }) { api, world in
            try await world.register("owner@example.com", password: Self.password)
            for index in 0..<4 {
                // A client inventing a new X-Forwarded-For per guess is still counted at its socket address.
                let code = try await Self.signIn(
                    api, email: "u\(index)@example.com", password: "guess", forwardedFor: "10.9.9.\(index)")
                #expect(code == 210)
            }
            #expect(
                try await Self.signIn(api, email: "owner@example.com", password: Self.password, forwardedFor: "10.9.9.200") == 510
            )
        }
    }

    @Test func httpsForwardedByATrustedProxyTurnsOnHSTSAndFromAnyoneElseDoesNot() async throws {
        for trusted in [true, false] {
            try await withLiveAPI(configure: { $0.trustedProxies = trusted ? ["127.0.0.0/8"] : [] }) { api, _ in
                let forwarded = try await api.get("/health/live", headers: [.init("X-Forwarded-Proto")!: "https"])
                #expect(forwarded.headers[.strictTransportSecurity] == (trusted ? "max-age=31536000" : nil))
                let plain = try await api.get("/health/live", headers: [.init("X-Forwarded-Proto")!: "http"])
                #expect(plain.headers[.strictTransportSecurity] == nil)
            }
        }
    }
}
