import CaptureCore
import Testing

@Suite struct TrustedProxiesTests {
    let proxies = TrustedProxies(["127.0.0.1", "10.0.0.0/8", "fd00::/8"])!

    @Test func rangesMatchByPrefixForIPv4AndIPv6() {
        #expect(proxies.trusts("10.200.3.4"))
        #expect(proxies.trusts("::ffff:10.1.1.1"), "an IPv4-mapped peer is its IPv4 address")
        #expect(proxies.trusts("fd12:3456::1"))
        #expect(!proxies.trusts("11.0.0.1"))
        #expect(!proxies.trusts("fe80::1"))
        #expect(!proxies.trusts("not an address"))
        #expect(TrustedProxies(["10.0.0.0/33"]) == nil)
        #expect(TrustedProxies(["example.com"]) == nil)
    }

    @Test func forwardingHeadersFromAnUntrustedPeerAreIgnored() {
        let origin = proxies.origin(
            peer: "203.0.113.9", forwarded: "for=198.51.100.1;proto=https", xForwardedFor: "198.51.100.2",
            xForwardedProto: "https")
        #expect(origin == .init(address: "203.0.113.9", forwardedScheme: nil))
        #expect(
            TrustedProxies.none.origin(peer: "127.0.0.1", forwarded: nil, xForwardedFor: "1.2.3.4", xForwardedProto: nil).address
                == "127.0.0.1")
    }

    @Test func theClientIsTheNearestHopNoTrustedProxyStandsFor() {
        // A client may send its own X-Forwarded-For; only the hops our proxies appended are believed.
        let origin = proxies.origin(
            peer: "127.0.0.1", forwarded: nil, xForwardedFor: "6.6.6.6, 198.51.100.7, 10.0.0.5", xForwardedProto: "https")
        #expect(origin == .init(address: "198.51.100.7", forwardedScheme: "https"))
    }

    @Test func forwardedCarriesProtoAndIPv6PortsAndTheOtherHeaderIsIgnored() {
        let forwarding = TrustedProxies(["127.0.0.1", "10.0.0.0/8"], header: .forwarded)!
        let origin = forwarding.origin(
            peer: "10.0.0.1", forwarded: #"for="[2001:db8:cafe::17]:4711";proto=https, for=10.0.0.2"#,
            xForwardedFor: "192.0.2.99", xForwardedProto: "http")
        #expect(origin == .init(address: "2001:db8:cafe::17", forwardedScheme: "https"))
        #expect(
            forwarding.origin(peer: "10.0.0.1", forwarded: nil, xForwardedFor: "192.0.2.99", xForwardedProto: "https")
                == .init(address: "10.0.0.1", forwardedScheme: nil))
    }

    /// Issue 27: a client's own `Forwarded` must not win over the proxy's `X-Forwarded-For`.
    @Test func withXForwardedForAClientsForwardedHeaderIsIgnored() {
        let origin = proxies.origin(
            peer: "127.0.0.1", forwarded: "for=6.6.6.6;proto=https", xForwardedFor: "198.51.100.7", xForwardedProto: nil)
        #expect(origin == .init(address: "198.51.100.7", forwardedScheme: nil))
    }

    @Test func anObfuscatedOrMalformedHopStopsTheWalkWithoutAnAddress() {
        let forwarding = TrustedProxies(["127.0.0.1"], header: .forwarded)!
        let origin = forwarding.origin(peer: "127.0.0.1", forwarded: "for=_hidden", xForwardedFor: nil, xForwardedProto: nil)
        #expect(origin.address == nil)
        #expect(
            proxies.origin(peer: "127.0.0.1", forwarded: nil, xForwardedFor: "not-an-address", xForwardedProto: nil).address
                == nil)
    }
}
